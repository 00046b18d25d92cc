// Creates, each sent at most once unless a lookup proved it absent. Before a create is sent, the resources that
// already match it are noted in its pending marker (they are never taken for it), and the marker goes to the state;
// when the answer is lost, the resource is looked up (and claimed) before anything is sent again. A lookup that
// fails leaves the outcome unknown and the marker in place: the next plan looks again.
import { errorCode, errorLine as line, OutcomeUnknown, TapedeckError } from '../errors.js';
import type { Client, Response } from '../remote/client.js';
import { backoff, maybeApplied } from '../remote/failures.js';
import { listAll } from '../live/list.js';
import { findCreated, matching, type Lister } from '../live/recover.js';
import { fillPathReferences } from '../resolve/refs.js';
import { fillReferences } from '../resolve/refs.js';
import { isObject, type Json, type JsonObject } from '../schema/values.js';
import type { State } from '../state/state.js';
import type { Change, Lookup } from '../types.js';

/** Each list as it was before this run sent any create into it: one read per list and scope, not per create. */
function listsBefore(): Lister {
  const before = new Map<string, Promise<JsonObject[]>>();
  return (c, list, scope) => {
    const key = JSON.stringify([list.path, scope]);
    // A list that failed is read again by the next create, not failed for every one.
    if (!before.has(key))
      before.set(
        key,
        listAll(c, list, scope).catch((e: unknown) => {
          before.delete(key);
          throw e;
        }),
      );
    return before.get(key)!;
  };
}

/**
 * Creates of look-alikes (equal list and fields: twins) on the wire. A lookup waits until none is: a twin's answer
 * that arrives later would name a resource the lookup took for its own (both addresses bound to one, the other
 * orphaned); once every answer is in, each one's resource is claimed and the rest are the lost ones'.
 */
function twinsOnTheWire() {
  const onTheWire = new Map<string, { count: number; idle?: () => void; settled?: Promise<void> }>();
  const sending = async <T>(key: string, send: () => Promise<T>): Promise<T> => {
    const w = onTheWire.get(key) ?? { count: 0 };
    onTheWire.set(key, w);
    w.count++;
    try {
      return await send();
    } finally {
      if (--w.count === 0) w.idle?.();
    }
  };
  const quiet = (key: string): Promise<void> => {
    const w = onTheWire.get(key);
    if (!w || w.count === 0) return Promise.resolve();
    w.settled ??= new Promise<void>((r) => {
      w.idle = () => {
        w.settled = undefined;
        w.idle = undefined;
        r();
      };
    });
    return w.settled;
  };
  return { sending, quiet };
}

export function creator(
  client: Client,
  state: State,
  save: () => Promise<void>,
  idOf: (address: string) => string | undefined,
) {
  /** resources already someone's: the state's, and each one this run creates or finds */
  const claimed = state.claimedIds();
  const listBefore = listsBefore();
  const { sending, quiet } = twinsOnTheWire();

  return async function create(c: Change, path: string, body: JsonObject | undefined): Promise<Response> {
    const request = c.request!;
    const lookup = c.lookup && (fillReferences(c.lookup as unknown as Json, idOf) as unknown as Lookup);
    if (lookup?.source) lookup.source.read.path = fillPathReferences(c.lookup!.source!.read.path, idOf);
    const existing = lookup ? await existingBefore(client, lookup, c, listBefore) : [];
    const since = new Date().toISOString();
    // The entry it replaces (a resource whose project changed) comes back if the create is refused outright.
    const previous = state.entry(c.address);
    state.set(c.address, { kind: c.kind, pending_since: since, ...(existing.length ? { existing } : {}) });
    // The marker is stored before the create is sent: a run that dies after sending it looks the resource up.
    await save();
    const twins = JSON.stringify([lookup?.list.path, lookup?.match, lookup?.source?.read.path]);
    for (let attempt = 1; ; attempt++) {
      try {
        // Claimed before the create counts as off the wire, so no lookup waiting for it can take its resource.
        return await sending(twins, async () => {
          const res = await client.call(request.method, path, body, false);
          const made = request.answer ? res.body[request.answer] : res.body;
          if (isObject(made) && made.id !== undefined) claimed.add(String(made.id));
          return res;
        });
      } catch (e) {
        if (!maybeApplied(e)) {
          // Refused at the first attempt: nothing was created. Refused later: an earlier attempt may still land.
          if (attempt > 1)
            throw new OutcomeUnknown(
              `${line(e)}: refused now, but an earlier attempt got no clear answer and may still take effect; the next plan looks again`,
            );
          if (previous) state.set(c.address, previous);
          else state.forget(c.address);
          throw e;
        }
        const found = await lookUpLost(e, client, c, lookup, () => quiet(twins), { since, existing, claimed });
        if (found) return { status: 200, body: request.answer ? { [request.answer]: found } : found };
        // Not there when looked for: only now may the create be sent again (a late arrival is the next plan's to find).
        if (attempt >= client.opts.maxAttempts)
          throw new OutcomeUnknown(
            `${line(e)}: not found after ${attempt} attempts, but one may still take effect; the next plan looks again`,
          );
        await client.clock.timer(backoff(client.opts, attempt)).done;
      }
    }
  };
}

/** The ids of the resources that match a create before it is sent (never taken for it); none may be sent when
 *  they cannot be listed. */
async function existingBefore(client: Client, lookup: Lookup, c: Change, listBefore: Lister): Promise<string[]> {
  try {
    return (await matching(client, lookup, c.schema!, listBefore)).map((r) => String(r.id));
  } catch (e) {
    throw new TapedeckError(`could not list what exists before creating (${line(e)}); nothing was sent`, {
      code: errorCode(e),
      cause: e,
    });
  }
}

/** A create whose answer was lost (`e`), looked up once every twin's answer is in: the resource it made, or none
 *  found; the outcome unknown where it cannot be looked up, or looking fails. */
async function lookUpLost(
  e: unknown,
  client: Client,
  c: Change,
  lookup: Lookup | undefined,
  twinsAnswered: () => Promise<void>,
  seen: { since: string; existing: string[]; claimed: Set<string> },
): Promise<JsonObject | undefined> {
  if (!lookup)
    throw new OutcomeUnknown(
      `${line(e)}: the create may have taken effect, and a ${c.kind} cannot be looked up; check the platform, then set the document's id or run \`tapedeck state forget ${c.address}\``,
    );
  try {
    await twinsAnswered();
    return await findCreated(client, { lookup, schema: c.schema!, ...seen });
  } catch (le) {
    throw new OutcomeUnknown(
      `${line(e)}: the create may have taken effect, and looking it up failed too (${line(le)}); the next plan looks again`,
    );
  }
}
