// Runs a plan, and only the plan: its changes in dependency waves with bounded concurrency, references filled
// in as their targets are created, every outcome recorded, the state saved after each success. Every write goes
// out only within the bound of a confirmation of the state's lock (state/lease.ts); once the lock is not confirmed,
// nothing more is sent and the state is not written.
import { errorLine } from '../errors.js';
import type { Client } from '../remote/client.js';
import type { State } from '../state/state.js';
import type { ApplyResult, Change, Plan, ResultEntry } from '../types.js';
import { mapPool, waves } from '../util/pool.js';
import { changeRunner, Dependencies } from './change.js';
import { record } from './record.js';
import { Saver } from './saver.js';

export interface ApplyOptions {
  concurrency: number;
  /** called as each change finishes, for progress output */
  onResult?: (r: ResultEntry) => void;
  /** set once the run is to stop (the agent's SIGTERM; apply's SIGINT or SIGTERM, by name): writes in flight
   *  finish, no new one starts */
  stopping?: () => boolean | string | undefined;
}

/** Runs the plan's changes; everything a change needs is in the change (apply consults no kind definition). */
export async function applyPlan(plan: Plan, client: Client, state: State, opts: ApplyOptions): Promise<ApplyResult> {
  const saver = new Saver(state);
  gateWritesOnTheLock(client, state, saver);
  const deps = new Dependencies(plan);
  recordNoops(plan, state, deps);
  const changes = plan.changes.filter((c) => c.action !== 'noop');
  const results = await runInWaves(
    changes,
    opts,
    changeRunner({ client, state, saver, deps, stopping: opts.stopping }),
    deps,
  );
  await saver.finish(changes.length > 0);
  return summarize(plan, changes, results, state, saver.error);
}

/**
 * Each write waits, right before it goes out (after its turn under the rate limits), for the lock to be confirmed;
 * one that is not stops the apply: the changes not sent yet are skipped with the reason.
 */
function gateWritesOnTheLock(client: Client, state: State, saver: Saver): void {
  client.gateWrites(() =>
    state.checkLock().catch((e: unknown) => {
      saver.stopWith(errorLine(e));
      throw e;
    }),
  );
}

/**
 * Noops change only the state (an adopted resource's id, its fields as they are): most of a large plan, recorded
 * in one pass before any write, without a promise or a result each.
 */
function recordNoops(plan: Plan, state: State, deps: Dependencies): void {
  for (const c of plan.changes) {
    if (c.action !== 'noop') continue;
    record(state, c, deps.idOf, c.id);
    deps.noop(c);
  }
}

/** The changes in dependency waves, each wave's at most `concurrency` at a time; the results as they finish. */
async function runInWaves(
  changes: Change[],
  opts: ApplyOptions,
  run: (c: Change) => Promise<ResultEntry>,
  deps: Dependencies,
): Promise<ResultEntry[]> {
  const results: ResultEntry[] = [];
  const settle = async (c: Change) => {
    const entry = await run(c);
    deps.settled(c.address, entry.outcome);
    results.push(entry);
    opts.onResult?.(entry);
  };
  for (const wave of waves(
    changes,
    (c) => c.address,
    (c) => c.depends_on ?? [],
  ))
    await mapPool(wave, opts.concurrency, settle);
  return results;
}

/** The result: in the plan's order, as planned (they finish in any order), with what the state does not record. */
function summarize(
  plan: Plan,
  changes: Change[],
  results: ResultEntry[],
  state: State,
  stateError: Saver['error'],
): ApplyResult {
  const order = new Map(changes.map((c, i) => [c.address, i]));
  results.sort((a, b) => order.get(a.address)! - order.get(b.address)!);
  const n = (o: ResultEntry['outcome']) => results.filter((r) => r.outcome === o).length;
  const unsaved = state.unsaved();
  if (stateError)
    for (const r of results)
      if (r.outcome !== 'skipped' && r.outcome !== 'failed' && unsaved.has(r.address)) r.state_recorded = false;
  return {
    format_version: 1,
    results,
    ...(stateError && unsaved.size ? { state_error: stateError.message, state_error_code: stateError.code } : {}),
    summary: {
      applied: n('applied'),
      failed: n('failed'),
      skipped: n('skipped'),
      unknown: n('unknown'),
      not_kept: results.filter((r) => r.not_kept).length,
      unchanged: plan.summary.noop + (plan.refresh?.not_read ?? 0),
    },
  };
}
