// Which files below DIR are read as documents: every *.yaml/*.yml, except tapedeck.yaml and vars.example.yaml at
// the root, the rules/ folder at the root (guardrail rules, src/rules/), hidden entries and node_modules. Symbolic links are followed when they lead to a file or folder inside DIR, and each
// real file and folder is read once: a link to an ancestor, or a second way to a folder, adds nothing and cannot
// loop. A link leading outside DIR is refused rather than followed: a document set a pull request can change must
// not reach files elsewhere on the machine (and echo them in error messages). A link leading nowhere, a loop of
// links, something that is not a regular file (a FIFO would block the read for ever), and a file or folder that
// cannot be read are refused too, each with its path: never skipped without a word.
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Issue } from '../types.js';

export const PROJECT_FILE = 'tapedeck.yaml';
/** The variables a portable export's documents need, with their source values (export --portable): not documents. */
export const VARS_EXAMPLE_FILE = 'vars.example.yaml';
/** The folder of DIR whose files hold guardrail rules, not documents (src/rules/load.ts). */
export const RULES_DIR = 'rules';
const notDocuments = [PROJECT_FILE, VARS_EXAMPLE_FILE, RULES_DIR];

export const isYamlName = (name: string) => /\.ya?ml$/.test(name);

/** What a file that is not a regular one is, for the message. */
function what(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file';
}

type Entry = { file: string } | { link: string };

/** Whether the real path `target` is `root` or below it. */
export const within = (target: string, root: string) => target === root || target.startsWith(root + sep);

/** Where a link leads (its real path, and what is there), and why it may not be followed, if it may not. */
type Followed = { target: string; st: Stats; problem?: string } | { target?: undefined; problem: string };

/**
 * Where the link `link` leads, and why it may not be followed: it leads nowhere, round in a loop, or outside `root`
 * (DIR's real path). The one check for every file DIR holds: documents, the project file, the rules. `shown` names
 * a path in a message.
 */
export function followLink(link: string, root: string, shown: (path: string) => string): Followed {
  let target: string;
  try {
    target = realpathSync(link);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { problem: 'is a symbolic link that leads round in a loop' };
    if (code === 'ENOENT') return { problem: `is a symbolic link to ${readlinkSync(link)}, which does not exist` };
    return { problem: `cannot be read (${code ?? 'error'})` };
  }
  const st = statSync(target);
  if (!within(target, root))
    return {
      target,
      st,
      problem: `is a symbolic link to a ${st.isDirectory() ? 'folder' : 'file'} outside DIR (${shown(target)}): only files inside DIR are read; move it in, or run tapedeck on a folder that holds both`,
    };
  return { target, st };
}

/**
 * Why the file or folder `path` of DIR may not be read, or undefined when it may (absent, or a link that leads
 * inside DIR): the project file's and the rules folder's check, the same as a document link's.
 */
export function linkOutside(path: string, dir: string, cwd: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  return followLink(path, realpathSync(dir), (p) => relative(cwd, p) || p).problem;
}

/**
 * The documents' files below `dir` (or `dir` itself, a file), in directory order, and why others were not read.
 * `boundary`: the folder outside which no link is followed (default `dir`; DIR for the rules folder below it).
 */
export function documentFiles(dir: string, cwd: string, boundary = dir): { files: string[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const shown = (path: string) => relative(cwd, path) || path;
  let st: Stats;
  try {
    st = statSync(dir);
  } catch {
    return { files: [], issues: [{ file: dir, message: 'no such directory', severity: 'error' }] };
  }
  if (st.isFile()) return { files: [dir], issues };
  if (!st.isDirectory()) {
    issues.push({
      file: shown(dir),
      pos: { line: 1, col: 1 },
      message: `is not a regular file (${what(st)})`,
      severity: 'error',
    });
    return { files: [], issues };
  }
  const walking: Walking = {
    root: realpathSync(dir),
    inside: realpathSync(boundary),
    seen: new Set(),
    shown,
    refuse: (path, message) => issues.push({ file: shown(path), pos: { line: 1, col: 1 }, message, severity: 'error' }),
  };
  const entries: Entry[] = [];
  walk(walking, dir, walking.root, entries);
  // Links are followed in directory order, after the plain walk: a file reached both ways is read by its own path.
  for (let i = 0; i < entries.length;) {
    const e = entries[i];
    if ('link' in e) entries.splice(i, 1, ...follow(walking, e.link));
    else i++;
  }
  return { files: entries.map((e) => (e as { file: string }).file), issues };
}

/** One walk of DIR: its real path, the boundary no link leads out of, the real paths of the folders walked and the
 *  files taken, and where a refusal goes. */
interface Walking {
  root: string;
  inside: string;
  seen: Set<string>;
  shown: (path: string) => string;
  refuse: (path: string, message: string) => void;
}

/** A folder's entries, links left to be followed once every real path without links is known. */
function walk(w: Walking, path: string, real: string, out: Entry[]): void {
  w.seen.add(real);
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch (e) {
    w.refuse(path, `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    return;
  }
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules' || (real === w.root && notDocuments.includes(e.name)))
      continue;
    const full = join(path, e.name);
    if (e.isSymbolicLink()) out.push({ link: full });
    else if (e.isDirectory()) walk(w, full, join(real, e.name), out);
    else if (!isYamlName(e.name)) continue;
    else if (e.isFile()) {
      w.seen.add(join(real, e.name));
      out.push({ file: full });
    } else w.refuse(full, `is not a regular file (${what(statSync(full))})`);
  }
}

/** What a link stands for: its target's entries, or nothing (already read, not a document, or refused). */
function follow(w: Walking, link: string): Entry[] {
  const followed = followLink(link, w.inside, w.shown);
  // A link to a file not named as a document is not read (as any such file), wherever it leads.
  if (followed.target !== undefined && !followed.st.isDirectory() && !isYamlName(link)) return [];
  if (followed.problem !== undefined || followed.target === undefined) {
    w.refuse(link, followed.problem!);
    return [];
  }
  const { target, st } = followed;
  if (w.seen.has(target)) return [];
  if (st.isDirectory()) {
    const out: Entry[] = [];
    walk(w, link, target, out);
    return out;
  }
  if (!st.isFile()) {
    w.refuse(link, `is a symbolic link to ${readlinkSync(link)}, which is not a regular file (${what(st)})`);
    return [];
  }
  w.seen.add(target);
  return [{ file: link }];
}
