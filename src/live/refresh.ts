// --refresh changed: which documents are read at all. A document whose desired values are the ones the state
// recorded after the last apply is taken as the state recorded it: not read, so drift in it is not checked (a full
// plan checks it). Everything else is read as in a full plan: documents whose values changed (a variable, a
// reference's id), creates, renames, pending creates, entries from an older tapedeck without recorded fields,
// documents with values from the environment (never stored, so never known to be unchanged), and those that may
// have to give up a default another document takes. Pure: no network.
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { managedFields } from '../diff/diff.js';
import { desiredOf } from '../resolve/desired.js';
import { documentDigest } from '../resolve/digest.js';
import { handoverCandidates } from '../resolve/handovers.js';
import { identityFields } from '../resolve/identity.js';
import { dependencyGraph, hasReference } from '../resolve/refs.js';
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, type JsonObject } from '../schema/values.js';
import type { State, StateEntry } from '../state/state.js';
import type { Document, Observed } from '../types.js';
import { waves } from '../util/pool.js';

export interface Refreshed {
  /** the documents to read */
  read: Document[];
  /** the others, taken as the state recorded them: address -> the id it records */
  known: Map<string, string>;
  /** those of them whose desired values were made (compared with the recorded fields, where the digest was not
   *  the recorded one): their live resource is taken to be their desired values */
  trusted: Map<string, Observed>;
}

/** Whether the managed fields of `desired` are, by meaning, exactly those the state recorded. */
function sameAsRecorded(k: KindDef, desired: JsonObject, recorded: Record<string, unknown>): boolean {
  const model = resourceModel(k.schema);
  const managed = managedFields(model, desired);
  const paths = Object.keys(managed);
  if (paths.length !== Object.keys(recorded).length) return false;
  return paths.every(
    (p) =>
      Object.hasOwn(recorded, p) && deepEqual(managed[p] ?? null, normalize(fieldAt(model, p), recorded[p]) ?? null),
  );
}

/**
 * Whether a document names the identity (x-identity: the project) its entry recorded: another one is a replace, a
 * new resource whose id references to it must wait for (not known without reading, nor before apply).
 */
function keepsIdentity(doc: Document, k: KindDef, entry: StateEntry): boolean {
  const model = resourceModel(k.schema);
  return identityFields(model).every((f) => {
    const v = doc.spec[f];
    if (v === undefined) return true;
    if (!entry.fields || (typeof v === 'string' && hasReference(v))) return false;
    const field = fieldAt(model, f);
    return deepEqual(normalize(field, v) ?? null, normalize(field, entry.fields[f]) ?? null);
  });
}

/** The id the state knows a document by, where it is the one a read would find (no rename, no pending create). */
function recordedId(doc: Document, k: KindDef, entry: StateEntry, desired: JsonObject): string | undefined {
  if (k.identity.by === 'key') {
    const key = String(desired[k.identity.field]);
    return !hasReference(key) && entry.id === key ? key : undefined;
  }
  const id = doc.id ?? entry.id;
  return id && entry.id === id ? id : undefined;
}

/**
 * The documents a `--refresh changed` plan reads, and the observations of the others. References are filled in
 * with the ids known without reading (those of documents taken from the state, else a document's own id or the
 * state's): a reference whose target has no such id leaves its text in, which no recorded value holds.
 */
export function changedSinceApply(
  docs: Document[],
  registry: Registry,
  state: State,
  opts: {
    /** the documents whose observation is wanted (their values compared, not only their digest): `apply --plan` */
    observe?: (address: string) => boolean;
    /** --recreate-missing: a document read may be created again, with a new id */
    recreateMissing?: boolean;
  } = {},
): Refreshed {
  const { observe = () => false, recreateMissing } = opts;
  const graph = dependencyGraph(docs);
  const known = new Map<string, string>();
  const trusted = new Map<string, Observed>();
  const read: Document[] = [];
  const byAddress = graph.size ? new Map(docs.map((d) => [d.address, d])) : undefined;
  const idOf = (a: string) => {
    const taken = known.get(a);
    if (taken) return taken;
    const d = byAddress?.get(a);
    // A document read lends an id only where reading keeps it (--recreate-missing may create it again, a replace
    // makes another: keepsIdentity).
    if (!d || registry.get(d.kind)!.identity.by === 'key' || recreateMissing) return undefined;
    if (d.id) return d.id;
    const entry = state.entry(a)?.id ? state.entry(a) : d.moved_from ? state.entry(d.moved_from) : undefined;
    return entry && keepsIdentity(d, registry.get(d.kind)!, entry) ? entry.id : undefined;
  };
  // Targets before the documents referring to them, so that a target taken from the state lends its id.
  const ordered = graph.size
    ? waves(
        docs,
        (d) => d.address,
        (d) => graph.get(d.address) ?? [],
      ).flat()
    : docs;
  for (const doc of ordered) {
    const k = registry.get(doc.kind)!;
    const entry = state.entry(doc.address);
    const id = entry && !observe(doc.address) && digestHolds(doc, k, entry, graph.get(doc.address) ?? [], idOf);
    const o = entry && !id ? observedAsRecorded(doc, k, entry, graph.has(doc.address), idOf) : undefined;
    if (o) trusted.set(doc.address, o);
    const taken = id || o?.id;
    if (taken) known.set(doc.address, taken);
    else read.push(doc);
  }
  // A document taking a default reads those that may hold it now (resolve/handovers.ts): one holding it live behind
  // an unchanged document would not be handed over first, and the platform would refuse the new default.
  if (read.some((d) => registry.get(d.kind)!.uniqueWhen)) {
    for (const [taker, givers] of handoverCandidates(docs, registry)) {
      if (known.has(taker)) continue;
      for (const g of givers) {
        known.delete(g);
        trusted.delete(g);
      }
    }
  }
  // In the configuration's order, as a full plan reads them.
  return { read: read.length === docs.length ? docs : docs.filter((d) => !known.has(d.address)), known, trusted };
}

/** The id the state records for a document whose digest is the recorded one, without resolving the document. */
function digestHolds(
  doc: Document,
  k: KindDef,
  entry: StateEntry,
  refs: string[],
  idOf: (a: string) => string | undefined,
): string | undefined {
  // What resolving would look at first (observedAsRecorded): an entry to read, a default's hand-over to plan.
  if (
    !entry.digest ||
    !entry.fields ||
    entry.pending_since ||
    entry.released_at ||
    doc.sensitive?.length ||
    k.uniqueWhen
  )
    return undefined;
  const key = k.identity.by === 'key' ? doc.spec[k.identity.field] : undefined;
  const id =
    k.identity.by === 'key' ? (typeof key === 'string' && !hasReference(key) ? key : undefined) : (doc.id ?? entry.id);
  if (!id || entry.id !== id) return undefined;
  return documentDigest(doc, refs, idOf) === entry.digest ? id : undefined;
}

function observedAsRecorded(
  doc: Document,
  k: KindDef,
  entry: StateEntry,
  refers: boolean,
  idOf: (a: string) => string | undefined,
): Observed | undefined {
  // A released entry is read: the document that comes back takes its resource back (a restore).
  if (!entry.fields || entry.pending_since || entry.released_at || doc.sensitive?.length) return undefined;
  const { desired, source } = desiredOf(doc, k, refers, idOf);
  // A duplicate's placeholder stands for the source's value, which only a read tells.
  if (source && k.duplicate && JSON.stringify(desired).includes(k.duplicate.placeholder)) return undefined;
  const id = recordedId(doc, k, entry, desired);
  if (!id || !sameAsRecorded(k, desired, entry.fields)) return undefined;
  // Every field from the start, in readLive's order: one shape for every observation.
  return {
    doc,
    desired,
    source,
    id,
    live: desired,
    moved_from: undefined,
    from_state: k.identity.by !== 'key' && doc.id === undefined,
    adopted_by: undefined,
    restored: undefined,
    notes: undefined,
  };
}
