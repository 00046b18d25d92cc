// ${Kind/name.id} references between documents: where they stand, whether they resolve, the dependency graph,
// and filling in the ids once they are known.
import type { Document, Issue } from '../types.js';
import { isObject, type Json } from '../schema/values.js';
import { findCycle } from '../util/graph.js';
import { nearestPos } from '../validate/validate.js';

const REF = /\$\{([A-Za-z]+\/[^}.]+)\.id\}/g;
/** REF without the global flag, for a plain test (a global regex keeps its lastIndex between tests). */
const ANY_REF = new RegExp(REF.source);
/** A `${Kind/name.id}` still in a text: its id was not known when the text was made (shown as known after apply). */
export const UNRESOLVED = /\$\{[A-Za-z]+\/[^}]+\.id\}/;

export interface RefSite {
  pointer: string;
  target: string;
}

function collect(v: unknown, pointer: string, out: RefSite[]): void {
  if (typeof v === 'string') {
    for (const m of v.matchAll(REF)) out.push({ pointer, target: m[1] });
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => collect(x, `${pointer}/${i}`, out));
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) collect(x, `${pointer}/${k}`, out);
  }
}

/** Documents do not change once validated, so each is searched for references once (validate, read and plan ask). */
const found = new WeakMap<Document, RefSite[]>();

/** Every reference in a document's spec and duplicate_from. */
export function referencesOf(d: Document): RefSite[] {
  let out = found.get(d);
  if (out) return out;
  out = [];
  // Most documents reference nothing; the native serializer tells so faster than walking every value.
  if (!d.source.noPlaceholders && (d.duplicate_from?.includes('${') || JSON.stringify(d.spec).includes('${'))) {
    collect(d.spec, '/spec', out);
    if (d.duplicate_from) collect(d.duplicate_from, '/duplicate_from', out);
  }
  found.set(d, out);
  return out;
}

/** address -> the addresses it references */
const graphs = new WeakMap<readonly Document[], Map<string, string[]>>();
export function dependencyGraph(docs: readonly Document[]): Map<string, string[]> {
  // Validation, reading and planning all ask for the graph of the same (never changed) list of documents.
  let graph = graphs.get(docs);
  if (!graph) graphs.set(docs, (graph = new Map(docs.map((d) => [d.address, [...new Set(referencesOf(d).map((r) => r.target))]]))));
  return graph;
}

/** References to documents that do not exist, and reference cycles, as located issues. */
export function checkReferences(docs: Document[]): Issue[] {
  const issues: Issue[] = [];
  const byAddress = new Map(docs.map((d) => [d.address, d]));
  for (const d of docs) {
    for (const r of referencesOf(d)) {
      if (!byAddress.has(r.target)) {
        issues.push({ file: d.source.file, pos: nearestPos(d.source, r.pointer), pointer: r.pointer, severity: 'error',
          message: `\${${r.target}.id} refers to ${r.target}, which no document defines` });
      }
    }
  }
  if (docs.every((d) => referencesOf(d).length === 0)) return issues;
  const graph = dependencyGraph(docs);
  const cycle = findCycle(new Map([...graph].map(([a, deps]) => [a, deps.filter((x) => byAddress.has(x))])));
  if (cycle) {
    const d = byAddress.get(cycle[0])!;
    const site = referencesOf(d).find((r) => r.target === cycle[1]);
    issues.push({ file: d.source.file, pos: nearestPos(d.source, site?.pointer ?? ''), severity: 'error',
      message: `reference cycle: ${cycle.join(' -> ')}` });
  }
  return issues;
}

/** A copy with every reference whose id is known filled in; unknown ones stay as their text. */
export function fillReferences<T extends Json | undefined>(v: T, idOf: (address: string) => string | undefined): T {
  if (typeof v === 'string') return v.replace(REF, (all, target: string) => idOf(target) ?? all) as T;
  if (Array.isArray(v)) return v.map((x) => fillReferences(x, idOf)) as T;
  if (isObject(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fillReferences(x, idOf) as Json;
    return out as T;
  }
  return v;
}

/** Whether a value still holds a reference that is not known yet. */
export const hasReference = (v: unknown): boolean => {
  const text = typeof v === 'string' ? v : JSON.stringify(v ?? null);
  return text.includes('${') && ANY_REF.test(text);
};
