// One change of an apply, from its turn to its result: skipped (nothing more may be sent, a dependency did not go
// through, the run is stopping), applied to the state alone, or sent, recorded, saved and read back.
import { ApiError, errorCode, errorLine, NotSent, OutcomeUnknown, TapedeckError } from '../errors.js';
import { sentSecrets } from '../plan/sensitive.js';
import type { Client, Response } from '../remote/client.js';
import { fillPathReferences, fillReferences, firstUnresolved } from '../resolve/refs.js';
import { isObject, type JsonObject } from '../schema/values.js';
import type { State } from '../state/state.js';
import { sendsCreate, type Change, type Plan, type ResultEntry } from '../types.js';
import { writeTookEffect } from './confirm.js';
import { creator } from './create.js';
import { record, release, verify } from './record.js';
import type { Saver } from './saver.js';

type Outcome = ResultEntry['outcome'];

/** What the changes waiting for others look up: the ids known so far, and how each change went. */
export class Dependencies {
  /** the addresses some change depends on: only their ids are tracked (a plan of noops needs none) */
  private readonly awaited: Set<string>;
  private readonly ids = new Map<string, string>();
  private readonly outcome = new Map<string, Outcome>();
  readonly idOf = (address: string) => this.ids.get(address);

  constructor(plan: Plan) {
    // The plan filled in every reference it could, so only those to addresses in depends_on (and a create's to
    // itself) are left to look up while applying.
    this.awaited = new Set(plan.changes.flatMap((c) => c.depends_on ?? []));
    for (const c of plan.changes) if (c.id && this.awaited.has(c.address)) this.ids.set(c.address, c.id);
  }

  /** A noop counts as applied for those waiting for it. */
  noop(c: Change): void {
    if (this.awaited.has(c.address)) this.outcome.set(c.address, 'applied');
  }

  learnt(address: string, id: string): void {
    this.ids.set(address, id);
  }

  settled(address: string, outcome: Outcome): void {
    this.outcome.set(address, outcome);
  }

  /** A dependency that did not go through: a reference needs a known id, a requirement (an ordering rule) its apply. */
  failed(c: Change): string | undefined {
    return (c.depends_on ?? []).find(
      (d) => this.outcome.get(d) !== 'applied' && (!this.ids.has(d) || c.requires?.includes(d)),
    );
  }
}

export interface ChangeContext {
  client: Client;
  state: State;
  saver: Saver;
  deps: Dependencies;
  /** set once the run is to stop (the agent's SIGTERM; apply's SIGINT or SIGTERM, by name): no new write starts */
  stopping?: () => boolean | string | undefined;
}

const skipped = (c: Change, error: string, withId = false): ResultEntry => ({
  address: c.address,
  action: c.action,
  outcome: 'skipped',
  ...(withId && c.id ? { id: c.id } : {}),
  error,
  error_code: 'E_NOT_SENT',
});

const changesStateOnly = (c: Change) =>
  c.action === 'move' || c.action === 'release' || (c.action === 'restore' && !c.request);

/** Makes the function that takes one change to its result. */
export function changeRunner(x: ChangeContext): (c: Change) => Promise<ResultEntry> {
  const create = creator(x.client, x.state, () => x.saver.save(true), x.deps.idOf);
  const send = (c: Change, path: string, body: JsonObject | undefined) =>
    sendsCreate(c) ? create(c, path, body) : sendUpdate(x.client, c, path, body, x.deps.idOf);

  const sendAndRecord = async (c: Change): Promise<ResultEntry> => {
    try {
      const path = fillPathReferences(c.request!.path, x.deps.idOf);
      const body = fillReferences(c.request!.body, x.deps.idOf);
      // Looked for in the request as planned: filled in, a literal's text (`$${Offer/x.id}` sent as `${Offer/x.id}`)
      // reads like a reference.
      const unresolved = firstUnresolved(`${c.request!.path} ${JSON.stringify(c.request!.body ?? {})}`, x.deps.idOf);
      if (unresolved) throw new Error(`${unresolved} has no id yet`);
      const res = await send(c, path, body);
      const wrapper = c.request!.answer;
      const wrapped = wrapper ? res.body[wrapper] : undefined;
      const id = sendsCreate(c) ? String((isObject(wrapped) ? wrapped : res.body).id ?? '') || undefined : c.id;
      if (sendsCreate(c) && !id) throw new TapedeckError('the create response carried no id', { code: 'E_API' });
      if (id) x.deps.learnt(c.address, id);
      record(x.state, c, x.deps.idOf, id, isObject(wrapped) ? wrapped : undefined);
      // Done on the platform whether or not the state can record it (the result says which it does not).
      await x.saver.save(sendsCreate(c)).catch(() => {});
      const checked = await verify(x.state, c, x.deps.idOf, x.client);
      return { address: c.address, action: c.action, outcome: 'applied', ...(id ? { id } : {}), ...checked };
    } catch (e) {
      const outcome = e instanceof OutcomeUnknown ? 'unknown' : e instanceof NotSent ? 'skipped' : 'failed';
      return {
        address: c.address,
        action: c.action,
        outcome,
        ...(c.id ? { id: c.id } : {}),
        error: sentSecrets(c).mask(errorLine(e)),
        error_code: errorCode(e),
      };
    }
  };

  return async (c) => {
    const stop = x.saver.stopped();
    if (stop) return skipped(c, `not sent: ${stop}`, true);
    if (changesStateOnly(c)) {
      if (c.action === 'release') release(x.state, c.address);
      else record(x.state, c, x.deps.idOf, c.id);
      return { address: c.address, action: c.action, outcome: 'applied', ...(c.id ? { id: c.id } : {}) };
    }
    const failedDep = x.deps.failed(c);
    if (failedDep) return skipped(c, `skipped: ${failedDep} was not applied`);
    const signal = x.stopping?.();
    if (signal)
      return skipped(c, `skipped: stopping (${signal === true ? 'SIGTERM' : signal}); the next run applies it`);
    return sendAndRecord(c);
  };
}

/**
 * Sends an update; when it may or may not have taken effect (no answer, a 5xx on the way, or a 409 meeting its own
 * earlier attempt), the resource is read back and decides.
 */
async function sendUpdate(
  client: Client,
  c: Change,
  path: string,
  body: JsonObject | undefined,
  idOf: (address: string) => string | undefined,
): Promise<Response> {
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
}
