// Which reads a plan needs, decided before any request is sent: for each document, how its live resource is
// found (by key, by id, by natural key through its list, or not at all: it is to be created), and which lists
// to read instead of one GET per document. Pure: no network, no clock.
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import { creatable, type KindDef } from '../kinds/types.js';
import { listSpecOf } from '../kinds/access.js';
import { readPathFields } from '../kinds/paths.js';
import { dependencyGraph, hasReference } from '../resolve/refs.js';
import type { JsonObject } from '../schema/values.js';
import type { State, StateEntry } from '../state/state.js';
import type { Document, ListSpec } from '../types.js';
import { waves } from '../util/pool.js';

/** From this many documents of one kind and scope on, reading the list is cheaper than one GET each. */
export const LIST_READ_MIN = 20;

export interface DocRead {
  doc: Document;
  k: KindDef;
  /** the id the document or the state names */
  id?: string;
  /** the id came from the state: a 404 means the resource is gone, not a mistake in the document */
  fromState: boolean;
  /** a create sent earlier whose outcome was never learnt (lost answer, crash): look it up before creating again */
  pending?: { since: string; existing?: string[] };
  /** the document holds `${Kind/name.id}` references, filled in as their targets are read */
  refers: boolean;
  /** answered by a list read (the list's key) instead of a GET */
  viaList?: string;
  /** the state knows it by this address still (a rename): its entry is taken over */
  movedFrom?: string;
  /** the state entry it takes over was released: its resource is taken back (a restore), not created again */
  restored: boolean;
  /** where the state last saw it: its values of the fields the read path is built from (a content type's project
   *  and base type), so that a document naming another project reads the old resource and plans a replace */
  at?: JsonObject;
}

/** Whether a document waits for a list rather than sending a GET of its own (it then needs no request slot). */
export const answeredByList = (r: DocRead) => !!r.viaList || (r.k.identity.by === 'natural' && !r.id && !r.pending);

/** One list of a kind in one scope: read whole (natural keys, defaults), or only until some ids are found. */
export interface ListRead {
  k: KindDef;
  list: ListSpec;
  scope: JsonObject;
  whole: boolean;
  /** ids it should answer (only where that is cheaper than their GETs) */
  ids: Set<string>;
}

export interface ReadPlan {
  /** lists read up front, by key (`listKey`) */
  lists: Map<string, ListRead>;
  /** every document's read, in the order their references need: a wave's ids are known before the next is read */
  waves: DocRead[][];
}

/** The key of a list in a scope, the same whether decided up front or asked while reading. */
export const listKey = (k: KindDef, scope: JsonObject) => `${k.kind} ${JSON.stringify(scope)}`;

/** The scope of a kind's list for a spec, or undefined where it is not known yet (it holds a reference). */
export function scopeOf(list: ListSpec, spec: JsonObject): JsonObject | undefined {
  const values = list.scope.map((f) => spec[f]);
  if (values.some((v) => typeof v !== 'string' || hasReference(v))) return undefined;
  return Object.fromEntries(list.scope.map((f, i) => [f, values[i]])) as JsonObject;
}

/** A would-be default (one default configuration per project and type) is checked against the live ones. */
export const wouldBeDefault = (k: KindDef, spec: JsonObject) => (k.uniqueWhen ?? []).some((u) => spec[u.when] === true);

/** The state's values of the fields a kind's read path is built from, where it recorded them all. */
function recordedAt(k: KindDef, entry: StateEntry): JsonObject | undefined {
  const fields = readPathFields(k);
  const values = fields.map((f) => entry.fields?.[f]);
  if (!fields.length || values.some((v) => typeof v !== 'string' || !v)) return undefined;
  return Object.fromEntries(fields.map((f, i) => [f, values[i]])) as JsonObject;
}

/** How one document is read: by the id it has or the state gives it (a renamed document takes over the entry of
 *  the address it moved from, unless its own address has one), a pending create looked up, a release taken back. */
function docRead(doc: Document, k: KindDef, state: State, graph: Map<string, string[]>): DocRead {
  const own = state.entry(doc.address);
  const old = !own && doc.moved_from ? state.entry(doc.moved_from) : undefined;
  // A rename keeps its resource: an id naming another one would take that one over and let the old one go unseen.
  if (old?.id && doc.id !== undefined && k.identity.by !== 'key' && old.id !== doc.id) {
    throw new UserError(
      `${doc.address}: moved_from ${doc.moved_from} is ${old.id} in the state, but the document's id is ${doc.id}: a rename keeps its resource. Remove id to keep ${old.id}, or remove moved_from to manage ${doc.id} (${doc.moved_from} is then released)`,
      { code: 'E_PLAN' },
    );
  }
  const entry = own ?? old;
  const fromState = doc.id === undefined && k.identity.by !== 'key' ? entry?.id : undefined;
  const id = doc.id ?? fromState;
  // One shape for every document's read (fields set from the start): one is made per document before any request.
  const pending =
    entry?.pending_since && creatable(k) ? { since: entry.pending_since, existing: entry.existing } : undefined;
  return {
    doc,
    k,
    id: id || undefined,
    fromState: !!fromState,
    refers: (graph.get(doc.address) ?? []).length > 0,
    pending,
    viaList: undefined,
    movedFrom: old ? doc.moved_from : undefined,
    restored: !!entry?.released_at && (k.identity.by === 'key' || (!!id && id === entry.id)),
    at: fromState ? recordedAt(k, entry!) : undefined,
  };
}

export function planReads(docs: Document[], registry: Registry, state: State): ReadPlan {
  const graph = dependencyGraph(docs);
  const reads: DocRead[] = [];
  const groups = new Map<string, ListRead & { withId: DocRead[] }>();
  for (const doc of docs) {
    const k = registry.get(doc.kind)!;
    const r = docRead(doc, k, state, graph);
    reads.push(r);
    const { id } = r;
    const list = listSpecOf(k);
    const scope = list && scopeOf(list, doc.spec);
    if (!list || !scope || k.identity.by === 'key' || (!id && k.identity.by !== 'natural')) continue;
    const key = listKey(k, scope);
    if (!groups.has(key)) groups.set(key, { k, list, scope, whole: false, ids: new Set(), withId: [] });
    const g = groups.get(key)!;
    // The whole live list is read anyway to find a document by natural key, or to check a would-be default.
    if (!id || wouldBeDefault(k, doc.spec)) g.whole = true;
    if (id) {
      g.ids.add(id);
      g.withId.push(r);
    }
  }
  const lists = new Map<string, ListRead>();
  for (const [key, { withId, ...g }] of groups) {
    // Where the whole list is read anyway, it answers the ids too; otherwise only from LIST_READ_MIN ids on.
    if (g.ids.size < LIST_READ_MIN) g.ids.clear();
    else for (const r of withId) r.viaList = key;
    if (g.whole || g.ids.size) lists.set(key, g);
  }
  return {
    lists,
    waves: waves(
      reads,
      (r) => r.doc.address,
      (r) => graph.get(r.doc.address) ?? [],
    ),
  };
}
