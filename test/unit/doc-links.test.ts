// Every relative link in the README and docs/ leads somewhere: to a file or folder of the repository, and where it
// names an #anchor, to a heading of that Markdown file (GitHub's anchors: lower case, punctuation dropped, spaces as
// hyphens, a repeated heading numbered). Links inside code blocks and to other sites are not checked.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks. */
const prose = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

/** GitHub's anchor for a heading's text. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every broken relative link of one file, as `file: target (why)`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // another site, mailto:
    const [path, anchor] = target.split('#', 2);
    const to = path ? join(dirname(file), decodeURIComponent(path)) : file;
    const where = `${relative(root, file)}: ${target}`;
    if (!existsSync(to)) broken.push(`${where} (no such file)`);
    else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor))
      broken.push(`${where} (no heading with that anchor)`);
  }
  return broken;
}

describe('links in the documentation', () => {
  const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

  it.each(files.map((f) => [relative(root, f), f]))('%s: every relative link resolves', (_, file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it.each([
    ['State in PostgreSQL: shared by every runner', 'state-in-postgresql-shared-by-every-runner'],
    ['Walkthrough: `examples/multi-env`', 'walkthrough-examplesmulti-env'],
    ['tapedeck state push', 'tapedeck-state-push'],
    ['Guardrails: rules every plan must pass', 'guardrails-rules-every-plan-must-pass'],
  ])('the anchor of %j is %s', (heading, expected) => {
    expect(slug(heading)).toBe(expected);
  });
});
