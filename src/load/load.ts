// Files -> SourceDoc[]: every *.yaml/*.yml below a directory, each document with the position of every value.
// No validation here beyond "is it readable YAML".
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { CST, Document, Node, YAMLWarning } from 'yaml';
import { escapePointer } from '../schema/model.js';
import { printable } from '../schema/values.js';
import type { Issue, Pos, SourceDoc } from '../types.js';
import { readWideIntegers, withExactIntegers } from './exact-integers.js';
import { LONE_SURROGATE, MAX_DEPTH, parseQuick, Unsupported } from './quick-yaml.js';
import { documentFiles } from './files.js';
import { yamlLib } from './yaml-lib.js';

/** A document as read, with the pointers of its integers beyond 2^53, held as their exact decimal text (see
 *  exact-integers.ts): validation accepts them in int64 fields only. */
export interface LoadedDoc extends SourceDoc {
  wideIntegers?: string[];
}

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Alias expansion is bounded, so a "billion laughs" file is an error, not a hang. */
export const MAX_ALIAS_COUNT = 100;
export { MAX_DEPTH, parseWithYaml };
export { PROJECT_FILE } from './files.js';

function positionsOf(
  node: Node | null,
  linePos: (offset: number) => Pos,
  pointer: string,
  into: Map<string, Pos>,
  at?: number,
): void {
  if (!node) return;
  const { isMap, isPair, isScalar, isSeq } = yamlLib();
  const offset = at ?? node.range?.[0];
  if (offset !== undefined) into.set(pointer, linePos(offset));
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      positionsOf(
        pair.value as Node | null,
        linePos,
        `${pointer}/${escapePointer(key)}`,
        into,
        (pair.key as Node | null)?.range?.[0],
      );
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => positionsOf(item as Node | null, linePos, `${pointer}/${i}`, into));
  }
}

/** A collection nested deeper than MAX_DEPTH, or used as a mapping key (`yaml` would make it a string such as
 *  "[ a, b ]", and warn on the process's stderr): its offset and what is wrong. The syntax tree is walked without
 *  recursion: it holds any depth, where building values from it would overflow the stack (10,000 `[` do). */
function badCollection(tokens: CST.Token[]): { offset: number; message: string } | undefined {
  const stack = tokens.map((token): { token?: CST.Token | null; depth: number } => ({
    token: token.type === 'document' ? token.value : undefined,
    depth: 1,
  }));
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { token, depth } = top;
    if (!token || !('items' in token)) continue;
    if (depth > MAX_DEPTH) return { offset: token.offset, message: `collections nested more than ${MAX_DEPTH} deep` };
    for (const { key, value } of token.items) {
      if (key && 'items' in key)
        return { offset: key.offset, message: 'a mapping key must be a scalar, not a collection' };
      stack.push({ token: value, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Why a parsed document (its source text `text`) cannot be read, beyond its syntax errors, and where; or undefined. */
function refusal(doc: Document.Parsed, text: string): { message: string; offset?: number } | undefined {
  // `yaml` reads every document after a `%YAML 1.1` by YAML 1.1 too (`yes` is true): one document's value would
  // depend on another's directive.
  const { version } = doc.directives.yaml;
  if (version !== '1.2')
    return { message: `only YAML 1.2 is read; this document is YAML ${version}`, offset: doc.range[0] };
  let cycle: { message: string; offset?: number } | undefined;
  // An alias inside the node it names would make a value without end.
  if (text.includes('*')) {
    const { visit } = yamlLib();
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

/** A lone surrogate (`"\\uD800"`): `yaml` makes a string of it, which is no text (no UTF-8, no JSON string a
 *  platform reads back as written). Only escapes make one: the decoded file cannot hold one. */
function halfSurrogate(doc: Document.Parsed, text: string): { message: string; offset?: number } | undefined {
  if (!/\\[uU]/.test(text)) return undefined;
  let found: { message: string; offset?: number } | undefined;
  const { visit } = yamlLib();
  visit(doc, {
    Scalar: (_, node) => {
      const half = typeof node.value === 'string' ? LONE_SURROGATE.exec(node.value)?.[0] : undefined;
      if (half === undefined) return undefined;
      const escape = `\\u${half.charCodeAt(0).toString(16).toUpperCase()}`;
      found = { message: `${escape} is half of a surrogate pair, not a character`, offset: node.range?.[0] };
      return visit.BREAK;
    },
  });
  return found;
}

/** Parses one file's text into its documents; problems go to `issues`. The quick reader (js-yaml) reads the
 *  documents it can and `yaml` the others, each from its own text: an unusual document or a typo costs its own reading, not the
 *  file's, and the loading stays linear in the file's size. */
export function parseFile(text: string, file: string, issues: Issue[]): LoadedDoc[] {
  let quick;
  try {
    quick = parseQuick(text);
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    return parseWithYaml(text, file, issues);
  }
  // Positions are needed only to report a problem: then `yaml` reads that document once more and gives them. One
  // function per file, not a closure per document (each kept its context); each document's place is four small
  // integers in one array.
  const places: number[] = [];
  const locate = (index: number) => {
    let low = 0;
    let high = places.length / 4 - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (places[mid * 4] < index) low = mid + 1;
      else high = mid;
    }
    const [, start, end, line] = places.slice(low * 4, low * 4 + 4);
    return parseWithYaml(text.slice(start, end), file, [], { index, line })[0]?.positions ?? new Map<string, Pos>();
  };
  const out: LoadedDoc[] = [];
  for (const d of quick) {
    if (!('value' in d)) out.push(...parseWithYaml(text.slice(d.start, d.end), file, issues, d));
    else if (d.value !== null && d.value !== undefined) {
      places.push(d.index, d.start, d.end, d.line);
      out.push({ file, index: d.index, value: d.value, locate, noPlaceholders: d.noPlaceholders });
    }
  }
  return out;
}

/** Tags are read only from YAML's core schema: a tag `yaml` does not resolve (`!foo`, `!!js/function`, or `!!int`
 *  on a word) would otherwise be dropped with a warning, and the value read as a plain string. */
const CORE_TAGS = ['!!str', '!!int', '!!float', '!!bool', '!!null', '!!seq', '!!map'];

/** A warning of `yaml`'s as an error message: every one is something the reader did not take as written. */
function warningMessage(w: YAMLWarning): string {
  const tag = /^(?:Unresolved tag: (\S+)|(\S+) used for)/.exec(w.message);
  if (!tag) return w.message.split('\n')[0];
  const name = (tag[1] ?? tag[2]).replace(/^tag:yaml\.org,2002:/, '!!');
  return CORE_TAGS.includes(name)
    ? `the value is not a valid ${name}`
    : `unknown tag ${name}: only the core schema's tags are read (${CORE_TAGS.join(', ')})`;
}

/** The full YAML parser: every feature, every error message. Documents are parsed, composed and read one at a time,
 *  so a file's syntax trees never all live at once (all at once, they made the collector the main cost). */
function parseWithYaml(
  text: string,
  file: string,
  issues: Issue[],
  at: { index: number; line: number } = { index: 0, line: 1 },
): LoadedDoc[] {
  const { Composer, LineCounter, Parser } = yamlLib();
  const lc = new LineCounter();
  /** `text` may be one document of a file, starting on its line `at.line`. */
  const linePos = (offset: number): Pos => {
    const { line, col } = lc.linePos(offset);
    return { line: line + at.line - 1, col };
  };
  const problem = (offset: number | undefined, message: string) =>
    issues.push({
      file,
      pos: offset === undefined ? undefined : linePos(offset),
      message: `YAML: ${printable(message)}`,
      severity: 'error',
    });
  const out: LoadedDoc[] = [];
  // resolveKnownTags: false leaves YAML 1.1's !!binary, !!timestamp, !!set, !!omap and !!pairs unresolved (a warning,
  // so an error here) instead of making a Buffer, a Date or a Set that is no JSON value.
  const composer = new Composer({ uniqueKeys: true, resolveKnownTags: false });
  let index = at.index;
  const read = (doc: Document.Parsed) => {
    const loaded = readDocument(doc, index++, text, file, linePos, problem);
    if (loaded) out.push(loaded);
  };
  for (const token of new Parser(lc.addNewLine).parse(text)) {
    const bad = badCollection([token]);
    if (bad) {
      problem(bad.offset, bad.message);
      return [];
    }
    for (const doc of composer.next(token)) read(doc);
  }
  for (const doc of composer.end()) read(doc);
  return out;
}

/** One composed document as read, or undefined when it is empty or has a problem (then told to `problem`). */
function readDocument(
  doc: Document.Parsed,
  index: number,
  text: string,
  file: string,
  linePos: (offset: number) => Pos,
  problem: (offset: number | undefined, message: string) => void,
): LoadedDoc | undefined {
  for (const e of doc.errors) problem(e.pos[0], e.message.split('\n')[0]);
  for (const w of doc.warnings) problem(w.pos[0], warningMessage(w));
  if (doc.errors.length || doc.warnings.length) return undefined;
  // Only the document's own text is searched: a search of the whole file per document made a large file quadratic.
  const source = text.slice(doc.range[0], doc.range[2]);
  const refused = refusal(doc, source) ?? halfSurrogate(doc, source);
  if (refused) {
    problem(refused.offset, refused.message);
    return undefined;
  }
  const wide = readWideIntegers(doc, source);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    problem(doc.contents?.range[0] ?? doc.range[0], (e as Error).message.split('\n')[0]);
    return undefined;
  }
  if (value === null || value === undefined) return undefined; // an empty document, e.g. a trailing `---`
  const wideIntegers: string[] = [];
  if (wide) value = withExactIntegers(value, '', wideIntegers);
  const positions = new Map<string, Pos>();
  positionsOf(doc.contents as Node | null, linePos, '', positions);
  return { file, index, value, positions, ...(wideIntegers.length ? { wideIntegers } : {}) };
}

/** A file's bytes as documents: UTF-8 only (a byte order mark at the start is dropped). */
export function parseBytes(bytes: Uint8Array, file: string, issues: Issue[]): LoadedDoc[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    issues.push({ file, pos: { line: 1, col: 1 }, message: 'file is not valid UTF-8', severity: 'error' });
    return [];
  }
  return parseFile(text.replace(/^\uFEFF/, ''), file, issues);
}

/** Every document below `dir` (see files.ts for which files; no link followed outside `boundary`). Unreadable
 *  files are issues, not exceptions. */
export function loadDir(dir: string, cwd: string, boundary = dir): { docs: LoadedDoc[]; issues: Issue[] } {
  const { files, issues } = documentFiles(dir, cwd, boundary);
  const docs: LoadedDoc[] = [];
  for (const full of files) {
    const file = relative(cwd, full) || full;
    const fail = (message: string) => issues.push({ file, pos: { line: 1, col: 1 }, message, severity: 'error' });
    let bytes: Buffer;
    try {
      const size = statSync(full).size;
      if (size > MAX_FILE_BYTES) {
        fail(`file is ${size} bytes, over the limit of ${MAX_FILE_BYTES}`);
        continue;
      }
      bytes = readFileSync(full);
    } catch (e) {
      fail(`cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
      continue;
    }
    docs.push(...parseBytes(bytes, file, issues));
  }
  return { docs, issues };
}
