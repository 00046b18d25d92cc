// Makes the reads a ReadPlan decided, wave by wave along ${Kind/name.id} references so that an id found in one
// wave (an adopted configuration) is filled into the next. One document's read is read-document.ts's, the lists
// live-lists.ts's; deciding what to change is the planner's (plan/plan-from.ts), which declares what of each live
// resource it needs: reading keeps that much as each document is read, and lets the rest go at once.
import { ApiError } from '../errors.js';
import type { KindDef } from '../kinds/types.js';
import { identityMoved } from '../resolve/identity.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { State } from '../state/state.js';
import type { Live, Observed } from '../types.js';
import { mapPool } from '../util/pool.js';
import type { Caller } from '../remote/client.js';
import type { Owner } from './duplicates.js';
import { LiveLists } from './live-lists.js';
import { observationOf, readDocument, type ReadContext } from './read-document.js';
import { answeredByList, type DocRead, type ReadPlan } from './read-plan.js';

export interface ReadFailure {
  address: string;
  error: ApiError | Error;
}

/** What of a document's live resource outlives its read: the plan's projection (plan/plan-from.ts). */
export type LiveProjection = (o: Observed) => Live['live'];

export interface ReadOptions {
  concurrency: number;
  /** a resource the state knows that the platform does not have is planned as a create (else it is an error) */
  recreateMissing?: boolean;
  /** what is kept of each live resource once its document is read; without it, the whole resource */
  keep?: LiveProjection;
  /** after each document's read, failed or not (progress) */
  onRead?: () => void;
  /** each document's observation once its read is done and projected (the planner plans it while others are read) */
  onObserved?: (o: Observed) => void;
  /** the ids of documents that are not read (taken from the state, or from a saved plan) */
  knownId?: (address: string) => string | undefined;
}

export interface LiveRead {
  observed: Map<string, Observed>;
  failures: ReadFailure[];
  /** the live resources of a kind with a uniqueness rule that were listed while reading */
  liveListed: (k: KindDef) => JsonObject[];
  /** documents not read because reading stopped (the platform cannot be used) */
  notRead: number;
}

export async function readLive(plan: ReadPlan, client: Caller, state: State, opts: ReadOptions): Promise<LiveRead> {
  const { concurrency, keep, onRead = () => {} } = opts;
  const observed = new Map<string, Observed>();
  const failures: ReadFailure[] = [];
  // No answer after every retry, or a refused token, would fail every other read the same way: stop reading.
  let stopped: ApiError | undefined;
  let notRead = 0;
  // Documents whose resource is replaced (another project): their id is the old resource's, not the one references
  // to them will take (plan/build.ts makes the replace; a reference waits for the new id, known after apply).
  const replaced = new Set<string>();
  const ctx = readContext(plan, client, state, observed, opts, replaced);
  ctx.lists.start(plan.lists);
  const read = async (r: DocRead) => {
    if (stopped) return void notRead++;
    try {
      // Made before the first request: references are read wave by wave, so a document's targets are done first.
      const o = observationOf(r, ctx.idOf);
      observed.set(r.doc.address, o);
      await readDocument(ctx, r, o);
      if (o.from_state && identityMoved(resourceModel(r.k.schema), o).length) replaced.add(r.doc.address);
      if (keep) o.live = keep(o);
      opts.onObserved?.(o);
    } catch (e) {
      failures.push({ address: r.doc.address, error: e as Error });
      if (e instanceof ApiError && (e.status === 0 || e.status === 401 || e.status === 403)) stopped ??= e;
    }
    onRead();
  };
  for (const wave of plan.waves) await readWave(wave, concurrency, read);
  return { observed, failures, liveListed: await ctx.lists.ruledHolders(), notRead };
}

/** What every read of this reading shares; ids and holders are looked up in what is read so far. */
function readContext(
  plan: ReadPlan,
  client: Caller,
  state: State,
  observed: Map<string, Observed>,
  opts: ReadOptions,
  replaced: Set<string>,
): ReadContext {
  let owners: Map<string, Owner> | undefined;
  // Made when a pending create is first looked up: a set of every id the state knows is rarely needed.
  let claimed: Set<string> | undefined;
  return {
    client,
    lists: new LiveLists(client),
    // A document read has the id reading found (none: it is created, again with --recreate-missing), whatever the
    // state or a saved plan knew it by.
    idOf: (a) => (replaced.has(a) ? undefined : observed.has(a) ? observed.get(a)!.id : opts.knownId?.(a)),
    ownerOf: (id) => (owners ??= ownersOf(state, plan)).get(id),
    claimed: () => (claimed ??= state.claimedIds()),
    recreateMissing: opts.recreateMissing,
  };
}

/**
 * One wave in lanes: documents that send a GET keep `concurrency` requests on the wire, while those that wait for
 * a list wait beside them instead of holding request slots; one lane per list, so that a list's documents take
 * their resources as its pages arrive, not after every document of another list.
 */
async function readWave(wave: DocRead[], concurrency: number, read: (r: DocRead) => Promise<void>): Promise<void> {
  const byList = new Map<string, DocRead[]>();
  for (const r of wave.filter(answeredByList)) {
    const lane = byList.get(r.viaList ?? '') ?? [];
    if (!lane.length) byList.set(r.viaList ?? '', lane);
    lane.push(r);
  }
  await Promise.all([
    mapPool(
      wave.filter((r) => !answeredByList(r)),
      concurrency,
      read,
    ),
    ...[...byList.values()].map((rs) => mapPool(rs, concurrency, read)),
  ]);
}

/** Every id the state or a document of the plan names, with its holder (made once, when a create is first checked). */
function ownersOf(state: State, plan: ReadPlan): Map<string, Owner> {
  const out = new Map<string, Owner>();
  const declared = new Set<string>();
  for (const wave of plan.waves) {
    for (const r of wave) {
      declared.add(r.doc.address);
      if (r.doc.moved_from) declared.add(r.doc.moved_from);
    }
  }
  for (const [address, e] of Object.entries(state.data.resources)) {
    if (e.id) out.set(e.id, { address, released: !!e.released_at, declared: declared.has(address) });
  }
  for (const wave of plan.waves) {
    for (const r of wave) if (r.id) out.set(r.id, { address: r.doc.address, released: false, declared: true });
  }
  return out;
}
