// ${Kind/name.id} references between documents: where they stand, whether they resolve, the dependency graph,
// and filling in the ids once they are known. `$${Kind/name.id}` is the same text as a literal: it is no
// reference, and it keeps its escape until the string it stands in is complete (every reference in it filled in),
// so a plan's text that still waits for ids never confuses the two.
import { segment } from '../kinds/paths.js';
import type { Document, Issue } from '../types.js';
import { isObject, type Json } from '../schema/values.js';
import { findCycle } from '../util/graph.js';
import { closest } from '../schema/spelling.js';
import { nearestPos } from '../validate/locate.js';

/** The text of a reference, without its escape. */
const REF_TEXT = /\$\{([A-Za-z]+\/[^}.]+)\.id\}/;
/** A reference: its text not escaped by a `$` in front. */
const REF = new RegExp(`(?<!\\$)${REF_TEXT.source}`, 'g');
/** REF without the global flag, for a plain test (a global regex keeps its lastIndex between tests). */
const ANY_REF = new RegExp(REF.source);
/** An escaped literal (group 1, the literal) or a reference (group 2, its target), left to right. */
const ESCAPE_OR_REF = new RegExp(`\\$(${REF_TEXT.source.replace('(', '(?:')})|${REF_TEXT.source}`, 'g');
/** A `${Kind/name.id}` still in a text: its id was not known when the text was made (shown as known after apply). */
export const UNRESOLVED = /(?<!\$)\$\{[A-Za-z]+\/[^}]+\.id\}/;

/** Whether the text at `at` is a reference's text (`${Kind/name.id}`). */
export const startsWithReference = (s: string, at: number) => new RegExp(`^${REF_TEXT.source}`).test(s.slice(at));

/** Text that reads as a reference made a literal: a `$` in front of each reference's text. */
export const escapeReferences = (s: string) =>
  s.includes('${') ? s.replace(new RegExp(REF_TEXT.source, 'g'), '$$$&') : s;

export interface RefSite {
  pointer: string;
  target: string;
}

function collect(v: unknown, pointer: string, out: Scan): void {
  if (typeof v === 'string') {
    for (const m of v.matchAll(REF)) out.sites.push({ pointer, target: m[1] });
    out.escapes ||= v.includes('$${');
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => collect(x, `${pointer}/${i}`, out));
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) collect(x, `${pointer}/${k}`, out);
  }
}

/** A document's references, and whether it holds an escaped literal (filled in, unescaped, like a reference). */
interface Scan {
  sites: RefSite[];
  escapes: boolean;
}

/** Documents do not change once validated, so each is searched for references once (validate, read and plan ask). */
const found = new WeakMap<Document, Scan>();

/** The scan of every document without a `${`: one frozen value, not an object (and a WeakMap entry) per document. */
const NOTHING: Scan = Object.freeze({ sites: Object.freeze([]) as unknown as RefSite[], escapes: false });

function scan(d: Document): Scan {
  // The fast reader knows the text has no `${` at all: nothing to search, nothing to remember.
  if (d.source.noPlaceholders) return NOTHING;
  let out = found.get(d);
  if (out) return out;
  out = NOTHING;
  // Most documents reference nothing; the native serializer tells so faster than walking every value.
  if (d.duplicate_from?.includes('${') || JSON.stringify(d.spec).includes('${')) {
    out = { sites: [], escapes: false };
    collect(d.spec, '/spec', out);
    if (d.duplicate_from) collect(d.duplicate_from, '/duplicate_from', out);
  }
  found.set(d, out);
  return out;
}

/** Every reference in a document's spec and duplicate_from. */
export const referencesOf = (d: Document): RefSite[] => scan(d).sites;

/** Whether a document holds an escaped literal `$${Kind/name.id}`, which filling in turns into its text. */
export const holdsEscapes = (d: Document): boolean => scan(d).escapes;

/**
 * address -> the addresses it references, for the documents that reference something (most do not, and an empty
 * list for each would be made for nothing); ask it with `graph.get(address) ?? []`.
 */
const graphs = new WeakMap<readonly Document[], Map<string, string[]>>();
export function dependencyGraph(docs: readonly Document[]): Map<string, string[]> {
  // Validation, reading and planning all ask for the graph of the same (never changed) list of documents.
  let graph = graphs.get(docs);
  if (!graph) {
    graph = new Map();
    for (const d of docs) {
      const sites = referencesOf(d);
      if (sites.length) graph.set(d.address, [...new Set(sites.map((r) => r.target))]);
    }
    graphs.set(docs, graph);
  }
  return graph;
}

/** References to documents that do not exist, and reference cycles, as located issues. */
export function checkReferences(docs: Document[]): Issue[] {
  const issues: Issue[] = [];
  if (docs.every((d) => referencesOf(d).length === 0)) return issues;
  const byAddress = new Map(docs.map((d) => [d.address, d]));
  for (const d of docs) {
    for (const r of referencesOf(d)) {
      if (!byAddress.has(r.target)) {
        const lower = r.target.toLowerCase();
        const near =
          [...byAddress.keys()].find((a) => a.toLowerCase() === lower) ?? closest(r.target, [...byAddress.keys()]);
        issues.push({
          file: d.source.file,
          pos: nearestPos(d.source, r.pointer),
          pointer: r.pointer,
          severity: 'error',
          message: `\${${r.target}.id} refers to ${r.target}, which no document defines${near ? ` (did you mean \${${near}.id}?)` : ''}`,
        });
      }
    }
  }
  const graph = dependencyGraph(docs);
  const cycle = findCycle(new Map([...graph].map(([a, deps]) => [a, deps.filter((x) => byAddress.has(x))])));
  if (cycle) {
    const d = byAddress.get(cycle[0])!;
    const site = referencesOf(d).find((r) => r.target === cycle[1]);
    issues.push({
      file: d.source.file,
      pos: nearestPos(d.source, site?.pointer ?? ''),
      severity: 'error',
      message: `reference cycle: ${cycle.join(' -> ')}`,
    });
  }
  return issues;
}

/**
 * A string with every reference whose id is known filled in. Complete (no reference left), it drops the escapes of
 * its literals; otherwise they stay, so that filling it in later (apply) still tells literals from references.
 */
function fillString(s: string, idOf: (address: string) => string | undefined, keepEscapes: boolean): string {
  if (!s.includes('${')) return s;
  const complete = !keepEscapes && [...s.matchAll(REF)].every((m) => idOf(m[1]) !== undefined);
  return s.replace(ESCAPE_OR_REF, (all, literal: string | undefined, target: string | undefined) =>
    literal !== undefined ? (complete ? literal : all) : (idOf(target!) ?? all),
  );
}

/** A copy with every reference whose id is known filled in; unknown ones stay as their text. `keepEscapes`: the
 *  escapes of literals stay even where a string is complete (the form a plan's requests keep them in). */
export function fillReferences<T extends Json | undefined>(
  v: T,
  idOf: (address: string) => string | undefined,
  keepEscapes = false,
): T {
  if (typeof v === 'string') return fillString(v, idOf, keepEscapes) as T;
  if (Array.isArray(v)) return v.map((x) => fillReferences(x, idOf, keepEscapes)) as T;
  if (isObject(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fillReferences(x, idOf, keepEscapes) as Json;
    return out as T;
  }
  return v;
}

/** The first reference in a text (a plan's request, its escapes kept) whose id is not known, or undefined. */
export function firstUnresolved(text: string, idOf: (address: string) => string | undefined): string | undefined {
  if (!text.includes('${')) return undefined;
  for (const m of text.matchAll(REF)) if (idOf(m[1]) === undefined) return m[0];
  return undefined;
}

/** Whether a value still holds a reference that is not known yet. */
export const hasReference = (v: unknown): boolean => {
  const text = typeof v === 'string' ? v : JSON.stringify(v ?? null);
  return text.includes('${') && ANY_REF.test(text);
};

/** A planned path with its references filled in: each id encoded as one segment, as fillPath encodes values. */
export function fillPathReferences(path: string, idOf: (address: string) => string | undefined): string {
  return fillReferences(path, (address) => {
    const id = idOf(address);
    return id === undefined ? undefined : segment(id);
  });
}
