// What an apply tells the state of each change: the id and managed fields as the platform now has them, a release,
// and after a write the fields the platform did not keep as written (read back).
import { errorLine } from '../errors.js';
import { SENSITIVE, sentSecrets, touches } from '../plan/sensitive.js';
import type { Client } from '../remote/client.js';
import { fillPathReferences, fillReferences } from '../resolve/refs.js';
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, type JsonObject } from '../schema/values.js';
import type { State, StateEntry } from '../state/state.js';
import type { Change, ResultEntry } from '../types.js';
import { describeNotKept, notKept, notKeptEntry } from './confirm.js';

type IdOf = (address: string) => string | undefined;

/** The managed fields as planned, references filled in, sensitive ones left out (never stored). */
function plannedFields(c: Change, idOf: IdOf): JsonObject {
  // A change that sends nothing had every reference filled in when it was planned (an unknown one is a difference).
  const filled = c.request ? fillReferences(c.managed ?? {}, idOf) : (c.managed ?? {});
  return c.sensitive ? Object.fromEntries(Object.entries(filled).filter(([p]) => !touches(p, c.sensitive!))) : filled;
}

/**
 * The state learns the id and the managed fields as they now are on the platform: read from the write's answer
 * where it carries the resource (the server's own spelling, e.g. a duplicate's `%@` filled in), else as planned.
 */
export function record(state: State, c: Change, idOf: IdOf, id: string | undefined, answer?: JsonObject): void {
  const planned = plannedFields(c, idOf);
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
      Object.keys(planned).every((p) => deepEqual(fields[p] ?? null, normalize(fieldAt(model, p), planned[p]) ?? null)))
      ? c.digest
      : undefined;
  const entry: StateEntry = { kind: c.kind, ...(id ? { id } : {}), fields, ...(digest ? { digest } : {}) };
  // An entry that stays as it was is not replaced: a large apply with a few changes would otherwise make every
  // entry of the state again in memory.
  const was = state.entry(c.address);
  if (!was || JSON.stringify(was) !== JSON.stringify(entry)) state.set(c.address, entry);
  if (c.moved_from) state.forget(c.moved_from);
}

/** Declared no more: the entry stays, marked released, so a document that comes back takes its resource back. */
export function release(state: State, address: string): void {
  const was = state.entry(address);
  if (was?.id)
    state.set(address, {
      kind: was.kind,
      id: was.id,
      ...(was.fields ? { fields: was.fields } : {}),
      released_at: new Date().toISOString(),
    });
  else state.forget(address);
}

/** After a write, the resource read back: fields the platform did not keep as written are reported (and recorded). */
export async function verify(
  state: State,
  c: Change,
  idOf: IdOf,
  client: Client,
): Promise<Pick<ResultEntry, 'not_kept' | 'unverified'>> {
  if (!c.read || !c.expect) return {};
  try {
    const lost = await notKept(c, fillPathReferences(c.read.path, idOf), fillReferences(c.expect, idOf), client);
    const was = lost.length ? state.entry(c.address) : undefined;
    if (was?.fields) state.set(c.address, notKeptEntry(was, lost));
    const shown = lost.map((n) => (touches(n.path, c.sensitive ?? []) ? { ...n, sent: SENSITIVE, now: SENSITIVE } : n));
    return lost.length ? { not_kept: shown.map(describeNotKept) } : {};
  } catch (e) {
    return { unverified: sentSecrets(c).mask(errorLine(e)) };
  }
}
