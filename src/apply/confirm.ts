// Reading a resource back after a write, compared with what the write set (the change's `expect`): to learn
// whether a write whose answer was lost (reset, timeout, a 5xx on the way, or a 409 meeting its own earlier
// attempt) took effect, and to verify every write (Google's AIP-161 read/write consistency). Nothing is re-decided.
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, type Json } from '../schema/values.js';
import type { Caller } from '../remote/client.js';
import { unwrap } from '../live/list.js';
import type { StateEntry } from '../state/state.js';
import type { Change } from '../types.js';

export interface NotKept {
  path: string;
  sent: Json;
  now: Json | undefined;
}

/** The fields the platform does not hold as written. `readPath` and `expect` with references filled in. */
export async function notKept(
  c: Change,
  readPath: string,
  expect: Record<string, Json>,
  client: Caller,
): Promise<NotKept[]> {
  const live = unwrap(c.read!, (await client.call('GET', readPath)).body);
  const model = resourceModel(c.schema!);
  return Object.entries(expect).flatMap(([path, sent]) => {
    const now = normalize(fieldAt(model, path), valueAt(live, path));
    return deepEqual(now ?? null, sent ?? null) ? [] : [{ path, sent, now }];
  });
}

/** Whether the resource holds what the write set; `unknown` when it cannot be read. */
export async function writeTookEffect(
  c: Change,
  readPath: string,
  expect: Record<string, Json>,
  client: Caller,
): Promise<'yes' | 'no' | 'unknown'> {
  try {
    return (await notKept(c, readPath, expect, client)).length ? 'no' : 'yes';
  } catch {
    return 'unknown';
  }
}

/** One line per field: `name (sent "A", platform has "B")`. */
export const describeNotKept = (n: NotKept) =>
  `${n.path} (sent ${JSON.stringify(n.sent)}, platform has ${n.now === undefined ? 'nothing' : JSON.stringify(n.now)})`;

/**
 * The state's entry after a write the platform did not keep: the fields as the platform has them, and no digest, so
 * that the next plan (a `--refresh changed` one too) reads the resource and shows the difference again, rather than
 * taking the document as applied.
 */
export function notKeptEntry(entry: StateEntry, lost: NotKept[]): StateEntry {
  const { digest: _, ...rest } = entry;
  const fields = { ...entry.fields };
  for (const n of lost) if (Object.hasOwn(fields, n.path)) fields[n.path] = n.now ?? null;
  return { ...rest, fields };
}
