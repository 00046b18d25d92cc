// Which configurations an agent follows: the operator's --path values, each a directory of the repository or a glob
// of them (`projects/*`), matched against the files of a commit. A glob finds the directories that hold a
// tapedeck.yaml (the mark of a configuration: a folder of notes beside them is not one); a directory given as is is
// taken whether or not it has one, as a single --path always was. Pure: the tests' tables.
import { UserError } from '../errors.js';
import { PROJECT_FILE } from '../load/files.js';

export interface PathPattern {
  /** as the operator gave it */
  raw: string;
  /** the directory, without ./ or a trailing / (`.`: the repository's root) */
  dir: string;
  /** set when `dir` holds *, ? or **: the directories it matches */
  glob?: RegExp;
}

const GLOB = /[*?]/;

/** `*` one name (not across /), `?` one character of one, `**` any depth (none included). */
function globRegex(dir: string): RegExp {
  let re = '';
  for (let i = 0; i < dir.length; i++) {
    const c = dir[i];
    if (c === '*' && dir[i + 1] === '*') {
      const slash = dir[i + 2] === '/';
      re += slash ? '(?:[^/]+/)*' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function parsePaths(raw: string[]): PathPattern[] {
  return (raw.length ? raw : ['.']).map((r) => {
    const dir =
      r
        .replace(/\\/g, '/')
        .replace(/^(\.\/)+/, '')
        .replace(/\/+$/, '') || '.';
    const parts = dir.split('/');
    if (parts.includes('..') || dir.startsWith('/') || parts.some((p) => p === ''))
      throw new UserError(`--path is a directory inside the repository (or a glob of them), not ${JSON.stringify(r)}`);
    return { raw: r, dir, ...(GLOB.test(dir) ? { glob: globRegex(dir) } : {}) };
  });
}

/** One literal directory and nothing else: the agent as it always was (its status, metrics and standby). */
export const singleConfiguration = (patterns: PathPattern[]): boolean => patterns.length === 1 && !patterns[0].glob;

const inside = (dir: string, parent: string) => parent === '.' || dir.startsWith(`${parent}/`);

/**
 * The configurations at a commit (`files`: its paths), sorted, and those refused: one directory inside another
 * (its documents would be read by both), each named with why.
 */
export function configurationsAt(
  patterns: PathPattern[],
  files: string[],
): { dirs: string[]; refused: { dir: string; why: string }[] } {
  const found = new Set<string>();
  const marked = files.filter((f) => f === PROJECT_FILE || f.endsWith(`/${PROJECT_FILE}`));
  for (const p of patterns) {
    if (!p.glob) {
      found.add(p.dir);
      continue;
    }
    for (const f of marked) {
      const dir = f === PROJECT_FILE ? '.' : f.slice(0, -PROJECT_FILE.length - 1);
      if (p.glob.test(dir)) found.add(dir);
    }
  }
  const all = [...found].sort();
  const refused = all.flatMap((dir) => {
    const outer = all.find((o) => o !== dir && inside(dir, o));
    return outer ? [{ dir, why: `it is inside ${outer}, another configuration followed` }] : [];
  });
  const out = new Set(refused.map((r) => r.dir));
  return { dirs: all.filter((d) => !out.has(d)), refused };
}

/** The configurations a change of these paths touches: those with a file below their directory among them. */
export function touched(dirs: string[], changed: string[]): string[] {
  return dirs.filter((d) => changed.some((f) => inside(f, d)));
}
