// Reads the live resource behind every document, wave by wave along ${Kind/name.id} references so that an id
// found in one wave (an adopted configuration) can be filled into the next.
import { ApiError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { readPath } from '../kinds/paths.js';
import { listAll, listSome, naturalKeyOf, unwrap } from './list.js';
import { findCreated, recoverable } from './recover.js';
import { managedFields } from '../diff/diff.js';
import { resourceModel } from '../schema/model.js';
import { isObject, wireForm, type JsonObject } from '../schema/values.js';
import { dependencyGraph, fillReferences, hasReference } from '../resolve/refs.js';
import type { State } from '../state/state.js';
import type { Document } from '../types.js';
import { Backlog, mapPool, timeSlicer, waves } from '../util/pool.js';
import type { Client } from './client.js';

/** From this many documents of one kind and scope on, reading the list is cheaper than one GET each. */
export const LIST_READ_MIN = 20;

export interface Observed {
  doc: Document;
  /** the spec with every reference whose id is known filled in */
  desired: JsonObject;
  /** the event to duplicate, filled in where known */
  source?: string;
  id?: string;
  /** null: the resource does not exist yet */
  live: JsonObject | null;
}

export interface ReadFailure {
  address: string;
  error: ApiError | Error;
}

/** `mark` in each string of `v` replaced by the string at the same place in `original`. */
function substitute(v: JsonObject, original: JsonObject, mark: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    const o = original[k];
    if (typeof x === 'string' && typeof o === 'string') out[k] = x.split(mark).join(o);
    else if (isObject(x)) out[k] = substitute(x, isObject(o) ? o : {}, mark);
    else out[k] = x;
  }
  return out;
}

export async function readLive(docs: Document[], registry: Registry, client: Client, state: State, concurrency: number, onRead: (o: Observed) => void = () => {}) {
  const ids = new Map<string, string>();
  const observed = new Map<string, Observed>();
  const failures: ReadFailure[] = [];
  // No answer after every retry, or a refused token, would fail every other read the same way: stop reading.
  let stopped: ApiError | undefined;
  let notRead = 0;
  const lists = new Map<string, Promise<JsonObject[]>>();
  const graph = dependencyGraph(docs);
  const idOf = (a: string) => ids.get(a);

  const listed = (k: KindDef, desired: JsonObject): Promise<JsonObject[]> => {
    const scope = Object.fromEntries(k.list!.scope.map((f) => [f, desired[f]])) as JsonObject;
    const key = `${k.kind} ${JSON.stringify(scope)}`;
    if (!lists.has(key)) lists.set(key, listAll(client, k, scope));
    return lists.get(key)!;
  };

  /** Listed resources indexed by natural key, built once per list (a find per document would be quadratic). */
  const byNaturalKey = new Map<Promise<JsonObject[]>, Promise<Map<string, JsonObject>>>();
  const adopt = async (k: KindDef, desired: JsonObject): Promise<JsonObject | undefined> => {
    const list = listed(k, desired);
    if (!byNaturalKey.has(list)) {
      byNaturalKey.set(list, list.then((all) => {
        const index = new Map<string, JsonObject>();
        for (const r of all) {
          const key = naturalKeyOf(k, r);
          if (!index.has(key)) index.set(key, r);
        }
        return index;
      }));
    }
    return (await byNaturalKey.get(list)!).get(naturalKeyOf(k, desired));
  };

  const readOne = async (doc: Document): Promise<void> => {
    const k = registry.get(doc.kind)!;
    const refers = (graph.get(doc.address) ?? []).length > 0;
    const desired = wireForm(resourceModel(k.schema), refers ? fillReferences(doc.spec, idOf) : doc.spec) as JsonObject;
    const source = doc.duplicate_from && refers ? fillReferences(doc.duplicate_from, idOf) : doc.duplicate_from;
    const o: Observed = { doc, desired, source, live: null };
    observed.set(doc.address, o);
    try {
      if (k.identity === 'key') {
        const key = String(desired[k.keyField!]);
        if (hasReference(key)) return void (o.live = { [k.keyField!]: key }); // its target is created in this apply
        // A key kind's id is its key; a resource never set (a policy) reads as an empty one.
        o.live = (await get(k, { key, spec: desired }, true)) ?? { [k.keyField!]: key };
        o.id = key;
        ids.set(doc.address, key);
        return;
      }
      const fromState = state.idOf(doc.address);
      const id = doc.id ?? fromState;
      if (id) {
        const viaList = await listedById.get(`${k.kind} ${id}`);
        o.live = viaList?.get(id) ?? (await get(k, { id, spec: desired }, !doc.id));
        if (o.live) o.id = id;
        else if (!k.create) throw new Error(`${doc.kind} ${id} (from the state) no longer exists and cannot be created`);
      }
      // A create sent earlier whose outcome was never learnt (lost answer, crash): find it before creating again.
      const pending = state.entry(doc.address)?.pending_since;
      if (!o.live && pending && k.create) {
        if (!recoverable(k)) {
          throw new Error(`a create sent at ${pending} may have taken effect, and a ${k.kind} cannot be looked up: check the platform, then set its id in the document or run \`tapedeck state forget ${doc.address}\``);
        }
        const found = await findCreated(client, k, { managed: managedFields(resourceModel(k.schema), desired), source, since: pending }, state.claimedIds());
        if (found) {
          o.live = found;
          o.id = String(found.id);
        }
      }
      // A configuration that would become a default must be checked against the live ones: list them.
      if (k.list && (k.uniqueWhen ?? []).some((u) => desired[u.when] === true)) await listed(k, desired);
      if (!o.live && k.identity === 'natural') {
        const found = await adopt(k, desired);
        if (found) {
          o.live = found;
          o.id = String(found.id);
        }
      }
      // Once the duplicate exists, `%@` means what the server made of it: the source's value of that field.
      const mark = k.create?.placeholder;
      if (o.live && source && mark && JSON.stringify(desired).includes(mark)) {
        const original = await get(k, { id: source, spec: desired }, false);
        o.desired = substitute(desired, original ?? {}, mark);
      }
      if (o.id) ids.set(doc.address, o.id);
    } catch (e) {
      failures.push({ address: doc.address, error: e as Error });
      if (e instanceof ApiError && (e.status === 0 || e.status === 401 || e.status === 403)) stopped ??= e;
    }
  };

  /** The resource (a key kind's with its key), or null when it does not exist and `missingOk` (a deleted or
   *  never-set resource). */
  const get = async (k: KindDef, v: { id?: string; key?: string; spec: JsonObject }, missingOk: boolean) => {
    try {
      const { body } = await client.call('GET', readPath(k, v));
      return unwrap(k, body, v.key);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404 && (missingOk || k.read.notFound === 'empty')) return null;
      throw e;
    }
  };

  // Many documents of one listable kind in one scope: a few list pages instead of one GET each, read while the
  // other documents' GETs go out. A list that fails (a platform without it) means those are read one by one.
  // Documents found by natural key (no id yet) are always answered by their list, so it is fetched at once too.
  const listedById = new Map<string, Promise<Map<string, JsonObject>>>();
  /** addresses of the documents a list answers */
  const answered = new Set<string>();
  const groups = new Map<string, { k: KindDef; scope: JsonObject; ids: Set<string>; withId: Document[]; natural: Document[]; whole: boolean }>();
  for (const doc of docs) {
    const k = registry.get(doc.kind)!;
    const id = doc.id ?? state.idOf(doc.address);
    if (!k.list || k.identity === 'key' || (!id && k.identity !== 'natural')) continue;
    const values = k.list.scope.map((f) => doc.spec[f]);
    if (values.some((v) => typeof v !== 'string' || hasReference(v))) continue;
    // The scope object is built once per group: this loop runs over every document before the first request.
    const key = `${k.kind}\0${values.join('\0')}`;
    if (!groups.has(key)) groups.set(key, { k, scope: Object.fromEntries(k.list.scope.map((f, i) => [f, values[i]])) as JsonObject, ids: new Set(), withId: [], natural: [], whole: false });
    const g = groups.get(key)!;
    // The whole live list is read anyway to find a document by natural key, or to check a would-be default.
    if (!id || (k.uniqueWhen ?? []).some((u) => doc.spec[u.when] === true)) g.whole = true;
    if (id) {
      g.ids.add(id);
      g.withId.push(doc);
    } else g.natural.push(doc);
  }
  for (const g of groups.values()) {
    if (g.natural.length) void listed(g.k, g.scope).catch(() => []);
    for (const d of g.natural) answered.add(d.address);
    if (g.ids.size < LIST_READ_MIN) continue;
    for (const d of g.withId) answered.add(d.address);
    // Where the whole list is read anyway, it answers the ids too; otherwise only as far as that is cheaper.
    const found = g.whole
      ? listed(g.k, g.scope).then((items) => new Map(items.filter((r) => g.ids.has(String(r.id))).map((r) => [String(r.id), r])))
      : listSome(client, g.k, g.scope, g.ids);
    const settled = found.catch(() => new Map<string, JsonObject>());
    for (const id of g.ids) listedById.set(`${g.k.kind} ${id}`, settled);
  }

  // Two lanes per wave: documents that need a GET keep `concurrency` requests on the wire; documents answered by a
  // list are pure computation, done in time slices between network events, as are the diffs (`onRead`), so a
  // long run of them never holds up reading a reply or sending the next request.
  const slice = timeSlicer({ lastReply: () => client.lastReplyAt });
  const backlog = new Backlog<Observed>(onRead, slice);
  const readAndQueue = async (d: Document) => {
    if (stopped) return void notRead++;
    await readOne(d);
    backlog.push(observed.get(d.address)!);
  };
  for (const wave of waves(docs, (d) => d.address, (d) => graph.get(d.address) ?? [])) {
    const fromList: Document[] = [];
    const network: Document[] = [];
    for (const d of wave) (answered.has(d.address) ? fromList : network).push(d);
    await Promise.all([
      mapPool(network, concurrency, readAndQueue),
      mapPool(fromList, concurrency, async (d) => {
        await slice();
        await readAndQueue(d);
      }),
    ]);
  }
  await backlog.drain();
  const seen = new Map<string, JsonObject[]>();
  for (const [key, p] of lists) {
    const kind = key.split(' ')[0];
    seen.set(kind, [...(seen.get(kind) ?? []), ...(await p.catch(() => []))]);
  }
  /** the live resources of a kind that were listed while reading */
  const liveListed = (k: KindDef) => seen.get(k.kind) ?? [];
  return { observed, failures, liveListed, notRead };
}
