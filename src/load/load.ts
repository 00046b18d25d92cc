// Files -> SourceDoc[]: every *.yaml/*.yml below a directory, each document with the position of every value.
// No validation here beyond "is it readable YAML".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Composer, isMap, isPair, isScalar, isSeq, LineCounter, Parser, visit, type CST, type Document, type Node } from 'yaml';
import type { Issue, Pos, SourceDoc } from '../types.js';
import { MAX_DEPTH, parseSimple, Unsupported } from './fast-yaml.js';

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Alias expansion is bounded, so a "billion laughs" file is an error, not a hang. */
export const MAX_ALIAS_COUNT = 100;
export { MAX_DEPTH, parseWithYaml };
export const PROJECT_FILE = 'tapedeck.yaml';

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function yamlFiles(dir: string, root: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...yamlFiles(full, root));
    else if (e.isFile() && /\.ya?ml$/.test(e.name) && !(dir === root && e.name === PROJECT_FILE)) out.push(full);
  }
  return out;
}

function positionsOf(node: Node | null, lc: LineCounter, pointer: string, into: Map<string, Pos>, at?: number): void {
  if (!node) return;
  const offset = at ?? node.range?.[0];
  if (offset !== undefined) into.set(pointer, lc.linePos(offset));
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      positionsOf(pair.value as Node | null, lc, `${pointer}/${escapePointer(key)}`, into, (pair.key as Node | null)?.range?.[0]);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => positionsOf(item as Node | null, lc, `${pointer}/${i}`, into));
  }
}

/** A collection nested deeper than MAX_DEPTH, or used as a mapping key (`yaml` would make it a string such as
 *  "[ a, b ]", and warn on the process's stderr): its offset and what is wrong. The syntax tree is walked without
 *  recursion: it holds any depth, where building values from it would overflow the stack (10,000 `[` do). */
function badCollection(tokens: CST.Token[]): { offset: number; message: string } | undefined {
  const stack = tokens.map((token): { token?: CST.Token | null; depth: number } => ({ token: token.type === 'document' ? token.value : undefined, depth: 1 }));
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { token, depth } = top;
    if (!token || !('items' in token)) continue;
    if (depth > MAX_DEPTH) return { offset: token.offset, message: `collections nested more than ${MAX_DEPTH} deep` };
    for (const { key, value } of token.items) {
      if (key && 'items' in key) return { offset: key.offset, message: 'a mapping key must be a scalar, not a collection' };
      stack.push({ token: value, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Why a parsed document cannot be read, beyond its syntax errors, and where; or undefined. */
function refusal(doc: Document.Parsed, text: string): { message: string; offset?: number } | undefined {
  // `yaml` reads every document after a `%YAML 1.1` by YAML 1.1 too (`yes` is true): one document's value would
  // depend on another's directive.
  const { version } = doc.directives.yaml;
  if (version !== '1.2') return { message: `only YAML 1.2 is read; this document is YAML ${version}`, offset: doc.range[0] };
  let cycle: { message: string; offset?: number } | undefined;
  // An alias inside the node it names would make a value without end.
  if (text.includes('*')) {
    visit(doc, {
      Alias: (_, alias, path) => {
        if (!path.includes(alias.resolve(doc) as Node)) return undefined;
        cycle = { message: `the alias *${alias.source} is inside the node it names`, offset: alias.range?.[0] };
        return visit.BREAK;
      },
    });
  }
  return cycle;
}

/** Parses one file's text into its documents; problems go to `issues`. */
export function parseFile(text: string, file: string, issues: Issue[]): SourceDoc[] {
  let simple;
  try {
    simple = parseSimple(text);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    return parseWithYaml(text, file, issues);
  }
  // Positions are needed only to report a problem: then `yaml` reads the file once more and gives them.
  let full: SourceDoc[] | undefined;
  const positionsOfDoc = (index: number) => {
    full ??= parseWithYaml(text, file, []);
    return full.find((d) => d.index === index)?.positions ?? new Map<string, Pos>();
  };
  return simple
    .filter((d) => d.value !== null && d.value !== undefined)
    .map((d) => ({ file, index: d.index, value: d.value, locate: () => positionsOfDoc(d.index), noPlaceholders: d.noPlaceholders }));
}

/** The full YAML parser: every feature, every error message. */
function parseWithYaml(text: string, file: string, issues: Issue[]): SourceDoc[] {
  const lc = new LineCounter();
  const tokens = Array.from(new Parser(lc.addNewLine).parse(text));
  const bad = badCollection(tokens);
  if (bad) {
    issues.push({ file, pos: lc.linePos(bad.offset), message: `YAML: ${bad.message}`, severity: 'error' });
    return [];
  }
  const out: SourceDoc[] = [];
  Array.from(new Composer({ uniqueKeys: true }).compose(tokens)).forEach((doc, index) => {
    const at = (offset: number | undefined) => (offset === undefined ? undefined : lc.linePos(offset));
    for (const e of doc.errors) issues.push({ file, pos: lc.linePos(e.pos[0]), message: `YAML: ${e.message.split('\n')[0]}`, severity: 'error' });
    if (doc.errors.length) return;
    const refused = refusal(doc, text);
    if (refused) {
      issues.push({ file, pos: at(refused.offset), message: `YAML: ${refused.message}`, severity: 'error' });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      issues.push({ file, pos: at(doc.contents?.range[0]), message: `YAML: ${(e as Error).message.split('\n')[0]}`, severity: 'error' });
      return;
    }
    if (value === null || value === undefined) return; // an empty document, e.g. a trailing `---`
    const positions = new Map<string, Pos>();
    positionsOf(doc.contents as Node | null, lc, '', positions);
    out.push({ file, index, value, positions });
  });
  return out;
}

/** Every document below `dir`. Unreadable files are issues, not exceptions. */
export function loadDir(dir: string, cwd: string): { docs: SourceDoc[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const docs: SourceDoc[] = [];
  let st;
  try {
    st = statSync(dir);
  } catch {
    return { docs, issues: [{ file: dir, message: 'no such directory', severity: 'error' }] };
  }
  const files = st.isDirectory() ? yamlFiles(dir, dir) : [dir];
  for (const full of files) {
    const file = relative(cwd, full) || full;
    const size = statSync(full).size;
    if (size > MAX_FILE_BYTES) {
      issues.push({ file, pos: { line: 1, col: 1 }, message: `file is ${size} bytes, over the limit of ${MAX_FILE_BYTES}`, severity: 'error' });
      continue;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(full));
    } catch {
      issues.push({ file, pos: { line: 1, col: 1 }, message: 'file is not valid UTF-8', severity: 'error' });
      continue;
    }
    docs.push(...parseFile(text.replace(/^\uFEFF/, ''), file, issues));
  }
  return { docs, issues };
}
