// Runs a plan, and only the plan: its changes in dependency waves with bounded concurrency, references filled
// in as their targets are created, every outcome recorded, the state saved after each success.
import { ApiError, errorCode, errorLine, NotSent, OutcomeUnknown, TapedeckError, type ErrorCode } from '../errors.js';
import { fillPathReferences } from '../resolve/refs.js';
import { fillReferences, firstUnresolved } from '../resolve/refs.js';
import { deepEqual, isObject, normalize, valueAt, type JsonObject } from '../schema/values.js';
import { fieldAt, resourceModel } from '../schema/model.js';
import type { Client } from '../remote/client.js';
import type { State, StateEntry } from '../state/state.js';
import { sendsCreate, type ApplyResult, type Change, type Plan, type ResultEntry } from '../types.js';
import { mapPool, waves } from '../util/pool.js';
import { describeNotKept, notKept, notKeptEntry, writeTookEffect } from './confirm.js';
import { creator } from './create.js';
import { SENSITIVE, sentSecrets, touches } from '../plan/sensitive.js';

export interface ApplyOptions {
  concurrency: number;
  /** called as each change finishes, for progress output */
  onResult?: (r: ResultEntry) => void;
  /** true once the run is to stop (the agent's SIGTERM): writes in flight finish, no new one starts */
  stopping?: () => boolean;
}

/**
 * How often, at most, the state is rewritten for updates: a second apart, and ten times as long as its last write
 * took (a large state's text takes a noticeable time to write). Creates and pending
 * markers are written at once.
 */
const SAVE_EVERY_MS = 1000;
const SAVE_SHARE = 10;

/** Runs the plan's changes; everything a change needs is in the change (apply consults no kind definition). */
export async function applyPlan(plan: Plan, client: Client, state: State, opts: ApplyOptions): Promise<ApplyResult> {
  let savedAt = Date.now();
  let saveTook = 0;
  /** why the state could not be saved; from then on nothing more is sent */
  let stateError: string | undefined;
  let stateErrorCode: ErrorCode | undefined;
  const stateFailed = (e: unknown) => {
    stateError ??= errorLine(e);
    stateErrorCode ??= errorCode(e);
  };
  /** why nothing more may be sent: the state cannot be saved, or the lock on it is gone (another run may hold it) */
  let stop: string | undefined;
  const stopped = () => (stop ??= state.lockLost());
  /** Ids of created resources must never be lost; other changes to the state can wait a moment. */
  const save = async (urgent: boolean) => {
    // No write without the lock; nor, once a save failed, a create whose marker could not be stored.
    const why = stopped();
    if (why) throw new NotSent(why);
    if (!urgent && Date.now() - savedAt < Math.max(SAVE_EVERY_MS, SAVE_SHARE * saveTook)) return;
    const started = Date.now();
    // Set before the save is awaited, so the writes finishing meanwhile do not each start one.
    savedAt = started;
    try {
      await state.save();
    } catch (e) {
      stateFailed(e);
      stop ??= `the state could not be saved (${stateError})`;
      throw new NotSent(stop);
    }
    savedAt = Date.now();
    saveTook = savedAt - started;
  };
  // What a change waits for is all that is looked up while applying: the plan filled in every reference it could,
  // so only those to addresses in depends_on (and a create's to itself) are left. Tracking every address would
  // cost a plan of noops two maps as large as itself.
  const awaited = new Set(plan.changes.flatMap((c) => c.depends_on ?? []));
  const ids = new Map<string, string>();
  for (const c of plan.changes) if (c.id && awaited.has(c.address)) ids.set(c.address, c.id);
  /** address -> how its change went, for the changes waiting for it */
  const outcome = new Map<string, ResultEntry['outcome']>();
  const results: ResultEntry[] = [];
  const idOf = (a: string) => ids.get(a);

  const create = creator(client, state, () => save(true), idOf);

  /**
   * Sends an update; when it may or may not have taken effect (no answer, a 5xx on the way, or a 409 meeting its
   * own earlier attempt), the resource is read back and decides.
   */
  const send = async (c: Change, path: string, body: JsonObject | undefined) => {
    if (sendsCreate(c)) return create(c, path, body);
    try {
      return await client.call(c.request!.method, path, body, c.request!.retry);
    } catch (e) {
      const unclear = e instanceof ApiError && (e.ambiguous || e.status === 0 || e.status === 409);
      if (!unclear || !c.read) throw e;
      const took = await writeTookEffect(
        c,
        fillPathReferences(c.read.path, idOf),
        fillReferences(c.expect ?? {}, idOf),
        client,
      );
      if (took === 'yes') return { status: 200, body: {} };
      if (took === 'unknown')
        throw new OutcomeUnknown(
          `${e.line()}: it may or may not have taken effect, and reading it back failed; the next plan will show`,
        );
      throw e;
    }
  };

  /**
   * The state learns the id and the managed fields as they now are on the platform: read from the write's answer
   * where it carries the resource (the server's own spelling, e.g. a duplicate's `%@` filled in), else as planned.
   */
  const record = (c: Change, id: string | undefined, answer?: JsonObject) => {
    // Sensitive fields are never stored: their drift goes unseen, their values stay out of the state file.
    // A change that sends nothing had every reference filled in when it was planned (an unknown one is a difference).
    const filled = c.request ? fillReferences(c.managed ?? {}, idOf) : (c.managed ?? {});
    const planned = c.sensitive
      ? Object.fromEntries(Object.entries(filled).filter(([p]) => !touches(p, c.sensitive!)))
      : filled;
    const model = answer && c.schema ? resourceModel(c.schema) : undefined;
    const fields =
      model && answer
        ? Object.fromEntries(
            Object.keys(planned).map((p) => [p, normalize(fieldAt(model, p), valueAt(answer, p)) ?? null]),
          )
        : planned;
    // The digest stands for the document's desired values: recorded only where the fields are those.
    const digest =
      c.digest &&
      (!model ||
        Object.keys(planned).every((p) =>
          deepEqual(fields[p] ?? null, normalize(fieldAt(model, p), planned[p]) ?? null),
        ))
        ? c.digest
        : undefined;
    const entry: StateEntry = { kind: c.kind, ...(id ? { id } : {}), fields, ...(digest ? { digest } : {}) };
    // An entry that stays as it was is not replaced: a large apply with a few changes would otherwise make every
    // entry of the state again in memory.
    const was = state.entry(c.address);
    if (!was || JSON.stringify(was) !== JSON.stringify(entry)) state.set(c.address, entry);
    if (c.moved_from) state.forget(c.moved_from);
  };

  /** Declared no more: the entry stays, marked released, so a document that comes back takes its resource back. */
  const release = (address: string) => {
    const was = state.entry(address);
    if (was?.id)
      state.set(address, {
        kind: was.kind,
        id: was.id,
        ...(was.fields ? { fields: was.fields } : {}),
        released_at: new Date().toISOString(),
      });
    else state.forget(address);
  };

  /** After a write, the resource read back: fields the platform did not keep as written are reported (and recorded). */
  const verify = async (c: Change): Promise<Pick<ResultEntry, 'not_kept' | 'unverified'>> => {
    if (!c.read || !c.expect) return {};
    try {
      const lost = await notKept(c, fillPathReferences(c.read.path, idOf), fillReferences(c.expect, idOf), client);
      const was = lost.length ? state.entry(c.address) : undefined;
      if (was?.fields) state.set(c.address, notKeptEntry(was, lost));
      const shown = lost.map((n) =>
        touches(n.path, c.sensitive ?? []) ? { ...n, sent: SENSITIVE, now: SENSITIVE } : n,
      );
      return lost.length ? { not_kept: shown.map(describeNotKept) } : {};
    } catch (e) {
      return { unverified: sentSecrets(c).mask(errorLine(e)) };
    }
  };

  const run = async (c: Change): Promise<void> => {
    // A reference is satisfied by a known id; a requirement (the platform's ordering rules) only by having been applied.
    const failedDep = (c.depends_on ?? []).find(
      (d) => outcome.get(d) !== 'applied' && (!ids.has(d) || c.requires?.includes(d)),
    );
    let entry: ResultEntry;
    const why = stopped();
    if (why) {
      entry = {
        address: c.address,
        action: c.action,
        outcome: 'skipped',
        ...(c.id ? { id: c.id } : {}),
        error: `not sent: ${why}`,
      };
    } else if (c.action === 'move' || c.action === 'release' || (c.action === 'restore' && !c.request)) {
      // Changes of the state alone: nothing is sent.
      if (c.action === 'release') release(c.address);
      else record(c, c.id);
      entry = { address: c.address, action: c.action, outcome: 'applied', ...(c.id ? { id: c.id } : {}) };
    } else if (failedDep) {
      entry = {
        address: c.address,
        action: c.action,
        outcome: 'skipped',
        error: `skipped: ${failedDep} was not applied`,
        error_code: 'E_NOT_SENT',
      };
    } else if (opts.stopping?.()) {
      entry = {
        address: c.address,
        action: c.action,
        outcome: 'skipped',
        error: 'skipped: stopping (SIGTERM); the next run applies it',
        error_code: 'E_NOT_SENT',
      };
    } else {
      try {
        const path = fillPathReferences(c.request!.path, idOf);
        const body = fillReferences(c.request!.body, idOf);
        // Looked for in the request as planned: filled in, a literal's text (`$${Offer/x.id}` sent as `${Offer/x.id}`)
        // reads like a reference.
        const unresolved = firstUnresolved(`${c.request!.path} ${JSON.stringify(c.request!.body ?? {})}`, idOf);
        if (unresolved) throw new Error(`${unresolved} has no id yet`);
        const res = await send(c, path, body);
        const wrapper = c.request!.answer;
        const wrapped = wrapper ? res.body[wrapper] : undefined;
        const id = sendsCreate(c) ? String((isObject(wrapped) ? wrapped : res.body).id ?? '') || undefined : c.id;
        if (sendsCreate(c) && !id) throw new TapedeckError('the create response carried no id', { code: 'E_API' });
        if (id) ids.set(c.address, id);
        record(c, id, isObject(wrapped) ? wrapped : undefined);
        // Done on the platform whether or not the state can record it (the result says which it does not).
        await save(sendsCreate(c)).catch(() => {});
        entry = {
          address: c.address,
          action: c.action,
          outcome: 'applied',
          ...(id ? { id } : {}),
          ...(await verify(c)),
        };
      } catch (e) {
        const outcome = e instanceof OutcomeUnknown ? 'unknown' : e instanceof NotSent ? 'skipped' : 'failed';
        entry = {
          address: c.address,
          action: c.action,
          outcome,
          ...(c.id ? { id: c.id } : {}),
          error: sentSecrets(c).mask(errorLine(e)),
          error_code: errorCode(e),
        };
      }
    }
    outcome.set(c.address, entry.outcome);
    results.push(entry);
    opts.onResult?.(entry);
  };

  // Noops change only the state (an adopted resource's id, its fields as they are): most of a large plan, recorded
  // in one pass before any write, without a promise or a result each.
  for (const c of plan.changes) {
    if (c.action !== 'noop') continue;
    record(c, c.id);
    if (awaited.has(c.address)) outcome.set(c.address, 'applied');
  }
  const changes = plan.changes.filter((c) => c.action !== 'noop');
  // The lock is asked for before the first write and before each wave of them (the connection's end is heard at once).
  const checkLock = async () => {
    if (!stop)
      await state.checkLock().catch((e: unknown) => {
        stop = errorLine(e);
      });
  };
  for (const wave of waves(
    changes,
    (c) => c.address,
    (c) => c.depends_on ?? [],
  )) {
    await checkLock();
    await mapPool(wave, opts.concurrency, run);
  }
  await checkLock();
  // Without the lock the state is not written (another run may be writing it); a save that failed is tried again.
  const lockGone = stopped() && !stateError ? stop : undefined;
  if (lockGone) [stateError, stateErrorCode] = [lockGone, 'E_LOCKED'];
  else await state.save().catch(stateFailed);
  // In the plan's order, as they were planned (they finish in any order).
  const order = new Map(changes.map((c, i) => [c.address, i]));
  results.sort((a, b) => order.get(a.address)! - order.get(b.address)!);
  const n = (o: ResultEntry['outcome']) => results.filter((r) => r.outcome === o).length;
  const unsaved = state.unsaved();
  const unrecorded = stateError
    ? results.filter((r) => r.outcome !== 'skipped' && r.outcome !== 'failed' && unsaved.has(r.address))
    : [];
  for (const r of unrecorded) r.state_recorded = false;
  return {
    format_version: 1,
    results,
    ...(stateError && unsaved.size ? { state_error: stateError, state_error_code: stateErrorCode } : {}),
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
