// Makes the reads a ReadPlan decided, wave by wave along ${Kind/name.id} references so that an id found in one
// wave (an adopted configuration) is filled into the next. What each document is to be comes from resolve/;
// deciding what to change is the planner's.
import { ApiError, UserError } from '../errors.js';
import { createFor, type KindDef, type UniqueWhen } from '../kinds/types.js';
import { listSpecOf, lookupOf, readShapeOf } from '../kinds/access.js';
import { readPath, type PathValues } from '../kinds/paths.js';
import { desiredOf, withOriginal } from '../resolve/desired.js';
import { hasReference } from '../resolve/refs.js';
import { nearestPos } from '../validate/locate.js';
import type { JsonObject } from '../schema/values.js';
import type { State } from '../state/state.js';
import type { ListSpec, Observed } from '../types.js';
import { mapPool } from '../util/pool.js';
import type { Caller } from './client.js';
import { AnswersById, listAll, listSome, naturalKeyOf, unwrap } from './list.js';
import { answeredByList, listKey, scopeOf, wouldBeDefault, type DocRead, type ReadPlan } from './read-plan.js';
import { findCreated } from './recover.js';
import { byNaturalKey, duplicateCheck, keyKnown, naturalKeyFields, type Owner } from './duplicates.js';

/** A resource someone names (the state, duplicate_from) that the platform does not have. */
const NOT_FOUND = { code: 'E_NOT_FOUND' } as const;

export interface ReadFailure {
  address: string;
  error: ApiError | Error;
}

export interface ReadOptions {
  concurrency: number;
  /** a resource the state knows that the platform does not have is planned as a create (else it is an error) */
  recreateMissing?: boolean;
  /** after each document's read, with what was found (for a failed read too, as far as it got) */
  onRead?: (o: Observed | undefined) => void;
  /** the ids of documents that are not read (taken from the state, or from a saved plan) */
  knownId?: (address: string) => string | undefined;
}

export async function readLive(plan: ReadPlan, client: Caller, state: State, opts: ReadOptions) {
  const { concurrency, onRead = () => {} } = opts;
  const observed = new Map<string, Observed>();
  const failures: ReadFailure[] = [];
  // No answer after every retry, or a refused token, would fail every other read the same way: stop reading.
  let stopped: ApiError | undefined;
  let notRead = 0;
  // A document's id, once read: references are read wave by wave, so a document's targets are done before it starts.
  const idOf = (a: string) => observed.get(a)?.id ?? opts.knownId?.(a);
  /** resources already someone's: the state's, and those found for a pending create during this reading (made
   *  when a pending create is first looked up: a set of every id the state knows is rarely needed) */
  let claimed: Set<string> | undefined;

  const lists = new Map<string, Promise<JsonObject[]>>();
  /** the lists of kinds with a uniqueness rule, and the rules: the only lists the plan looks at after reading */
  const ruled = new Map<string, UniqueWhen[]>();
  const listed = (k: KindDef, list: ListSpec, scope: JsonObject): Promise<JsonObject[]> => {
    const key = listKey(k, scope);
    if (!lists.has(key)) lists.set(key, listAll(client, list, scope));
    if (k.uniqueWhen?.length) ruled.set(key, k.uniqueWhen);
    return lists.get(key)!;
  };
  /** Listed resources indexed by natural key, built once per list (a find per document would be quadratic). */
  const indexes = new Map<Promise<JsonObject[]>, Promise<Map<string, JsonObject[]>>>();
  /** The live resources in the desired one's scope with its natural key (undefined: the scope is not known yet). */
  const sameKey = async (k: KindDef, fields: string[], listSpec: ListSpec | undefined, desired: JsonObject): Promise<JsonObject[] | undefined> => {
    const scope = listSpec && scopeOf(listSpec, desired);
    if (!listSpec || !scope) return undefined;
    const list = listed(k, listSpec, scope);
    if (!indexes.has(list)) indexes.set(list, list.then((all) => byNaturalKey(k.schema, fields, all)));
    return (await indexes.get(list)!).get(naturalKeyOf(k.schema, fields, desired)) ?? [];
  };
  /** Who holds a live resource: the state's entries, then the documents of this plan (a restore takes a released one). */
  let owners: Map<string, Owner> | undefined;
  const ownerOf = (id: string) => (owners ??= ownersOf(state, plan)).get(id);
  /** Before a create: a live resource with the document's natural key that nobody manages stops the plan. */
  const lookBeforeCreating = async (o: Observed, k: KindDef) => {
    const list = listSpecOf(k);
    if (!list) return void (o.notes = [`duplicates could not be checked: a ${k.kind} has no list to look in`]);
    const fields = naturalKeyFields(k.schema);
    if (!fields || !keyKnown(fields, o.desired, o.source ? k.duplicate?.placeholder : undefined)) return;
    const same = await sameKey(k, fields, list, o.desired);
    const { note, error } = duplicateCheck(o.doc, k.schema, fields, same ?? [], ownerOf);
    if (error) throw error;
    if (note) o.notes = [note];
  };

  // Lists decided up front go out at once, beside the first GETs; one that fails (a platform without it) means
  // its documents are read one by one.
  const byId = new Map<string, AnswersById>();
  for (const [key, g] of plan.lists) {
    const answers = new AnswersById();
    byId.set(key, answers);
    const reading = g.whole
      ? listed(g.k, g.list, g.scope).then((items) => items.forEach((r) => g.ids.has(String(r.id)) && answers.answer(String(r.id), r)))
      : listSome(client, g.list, g.scope, g.ids, answers);
    void reading.catch(() => {}).finally(() => answers.finish());
  }

  /** The resource (a key kind's with its key), or null when it does not exist and `missingOk`. */
  const get = async (k: KindDef, v: PathValues, missingOk: boolean) => {
    const shape = readShapeOf(k);
    try {
      return unwrap(shape, (await client.call('GET', readPath(k, v))).body, v.key);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404 && (missingOk || shape.missing === 'empty')) return null;
      throw e;
    }
  };

  const readOne = async (r: DocRead): Promise<void> => {
    const { doc, k } = r;
    const d = desiredOf(doc, k, r.refers, idOf);
    // Every field from the start, in one order: ten thousand objects of one shape, not shapes that grow one by one.
    const o: Observed = { doc, desired: d.desired, source: d.source, id: undefined, live: null, moved_from: r.movedFrom, from_state: false, adopted_by: undefined, restored: r.restored, notes: undefined };
    observed.set(doc.address, o);
    const { desired, source } = o;
    if (k.identity.by === 'key') {
      const field = k.identity.field;
      const key = String(desired[field]);
      if (hasReference(key)) return void (o.live = { [field]: key }); // its target is created in this apply
      // A key kind's id is its key; a resource never set (a policy) reads as an empty one.
      o.live = (await get(k, { key, spec: desired }, true)) ?? { [field]: key };
      o.id = key;
      return;
    }
    if (r.id) {
      // Taken, the list lets go of it (a second document with the same id, which validation makes unlikely, is
      // read with a GET).
      const viaList = r.viaList ? await byId.get(r.viaList)?.take(r.id) : undefined;
      o.live = viaList ?? (await get(k, { id: r.id, spec: desired }, r.fromState));
      if (o.live) {
        o.id = r.id;
        o.from_state = r.fromState;
      } else if (!createFor(k, source)) throw new UserError(`${doc.kind} ${r.id} (from the state) no longer exists and cannot be created`, NOT_FOUND);
      // The wrong platform (another environment's URL, a wrong path prefix) answers 404 for every id it does not
      // have: re-creating them all would be the worst outcome, so only an explicit flag does it.
      else if (!opts.recreateMissing) {
        throw new UserError(`the state knows it as ${doc.kind} ${r.id}, but the platform has no such ${doc.kind}. If it was deleted, pass --recreate-missing to create it again (or run \`tapedeck state forget ${r.movedFrom ?? doc.address}\`); if not, check --base-url: this may be another platform`, NOT_FOUND);
      }
    }
    if (!o.live && r.pending) {
      const lookup = lookupOf(k, desired, source);
      if (!lookup) {
        throw new UserError(`a create sent at ${r.pending.since} may have taken effect, and a ${k.kind} cannot be looked up: check the platform, then set its id in the document or run \`tapedeck state forget ${doc.address}\``, { code: 'E_OUTCOME_UNKNOWN' });
      }
      const found = await findCreated(client, { lookup, schema: k.schema, since: r.pending.since, existing: r.pending.existing, claimed: (claimed ??= state.claimedIds()) });
      if (found) {
        o.live = found;
        o.id = String(found.id);
      }
    }
    // A configuration that would become a default must be checked against the live ones: list them.
    const list = listSpecOf(k);
    const scope = list && scopeOf(list, desired);
    if (list && scope && wouldBeDefault(k, desired)) await listed(k, list, scope);
    if (!o.live && k.identity.by === 'natural') {
      const found = (await sameKey(k, k.identity.fields, list, desired))?.[0];
      if (found) {
        o.live = found;
        o.id = String(found.id);
        o.adopted_by = k.identity.fields;
      }
    }
    if (!o.live && createFor(k, source) && k.identity.by !== 'natural') await lookBeforeCreating(o, k);
    // A duplicate yet to be made needs its source: a mistyped one is a located error now, not a failed apply.
    if (!o.live && source && k.duplicate && !hasReference(source)) {
      try {
        await get(k, { id: source, spec: desired }, false);
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 404)) throw e;
        const at = nearestPos(doc.source, '/duplicate_from');
        throw new UserError(`${doc.source.file}${at ? `:${at.line}:${at.col}` : ''}: duplicate_from ${source}: no such ${doc.kind} on the platform`, { ...NOT_FOUND, cause: e });
      }
    }
    // Once the duplicate exists, its placeholder means what the server made of it: the source's value of that field.
    const mark = source ? k.duplicate?.placeholder : undefined;
    if (o.live && source && mark && JSON.stringify(desired).includes(mark)) {
      o.desired = withOriginal(desired, (await get(k, { id: source, spec: desired }, false)) ?? {}, mark);
    }
  };

  const read = async (r: DocRead) => {
    if (stopped) return void notRead++;
    try {
      await readOne(r);
    } catch (e) {
      failures.push({ address: r.doc.address, error: e as Error });
      if (e instanceof ApiError && (e.status === 0 || e.status === 401 || e.status === 403)) stopped ??= e;
    }
    onRead(observed.get(r.doc.address));
  };
  // Lanes per wave: documents that send a GET keep `concurrency` requests on the wire, while those that wait for a
  // list wait beside them instead of holding request slots; one lane per list, so that a list's documents take
  // their resources as its pages arrive, not after every document of another list.
  for (const wave of plan.waves) {
    const byList = new Map<string, DocRead[]>();
    for (const r of wave.filter(answeredByList)) {
      const lane = byList.get(r.viaList ?? '') ?? [];
      if (!lane.length) byList.set(r.viaList ?? '', lane);
      lane.push(r);
    }
    await Promise.all([
      mapPool(wave.filter((r) => !answeredByList(r)), concurrency, read),
      ...[...byList.values()].map((rs) => mapPool(rs, concurrency, read)),
    ]);
  }
  // Only the live resources a rule can clash with (a default) outlive the reading: a project's 12,500 other
  // configurations would stay in memory for the whole plan only to be skipped by the check.
  const seen = new Map<string, JsonObject[]>();
  for (const [key, p] of lists) {
    const rules = ruled.get(key);
    if (!rules) continue;
    const kind = key.split(' ')[0];
    const holders = (await p.catch(() => [])).filter((r) => rules.some((u) => r[u.when] === true));
    seen.set(kind, [...(seen.get(kind) ?? []), ...holders]);
  }
  return { observed, failures, liveListed: listedByKind(seen), notRead };
}

/**
 * The live resources of a kind with a uniqueness rule (one default per project and type) that were listed while
 * reading; the lists of other kinds are let go with the reading. Made outside readLive: a closure made inside it
 * would keep all of the reading's working state (every document's read, the ids, the list indexes) alive for as
 * long as the plan holds the closure.
 */
function listedByKind(seen: Map<string, JsonObject[]>): (k: KindDef) => JsonObject[] {
  return (k) => seen.get(k.kind) ?? [];
}

/** Every id the state or a document of the plan names, with its holder (made once, when a create is first checked). */
function ownersOf(state: State, plan: ReadPlan): Map<string, Owner> {
  const out = new Map<string, Owner>();
  for (const [address, e] of Object.entries(state.data.resources)) if (e.id) out.set(e.id, { address, released: !!e.released_at });
  for (const wave of plan.waves) for (const r of wave) if (r.id) out.set(r.id, { address: r.doc.address, released: false });
  return out;
}
