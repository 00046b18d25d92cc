// Before a saved plan is applied: has any live resource it would write moved since the plan read it? Read again
// the way the change itself says (its read-back, or its create's lookup), and compared by the same fingerprint.
import { ApiError } from '../errors.js';
import type { JsonObject } from '../schema/values.js';
import type { Caller } from '../remote/client.js';
import { listAll, naturalKeyOf, unwrap } from '../remote/list.js';
import { fingerprint } from '../plan/fingerprint.js';
import type { Change, Plan } from '../types.js';
import { mapPool } from '../util/pool.js';

/** What the live resource behind a change looks like now, by the same measure the plan used. */
async function fingerprintNow(c: Change, client: Caller): Promise<string> {
  const schema = c.schema!;
  if (c.action === 'update') {
    const read = c.read!;
    try {
      return fingerprint(schema, read.carry, unwrap(read, (await client.call('GET', read.path)).body, read.key_field ? c.id : undefined));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return fingerprint(schema, read.carry, read.missing === 'empty' && read.key_field ? { [read.key_field]: c.id! } : null);
      throw e;
    }
  }
  // A create: only kinds found by a natural key can have appeared since; look for one.
  const fields = c.lookup?.natural_key;
  if (!fields) return 'absent';
  const { list, match } = c.lookup!;
  const scope = Object.fromEntries(list.scope.map((f) => [f, match[f] ?? null])) as JsonObject;
  const wanted = naturalKeyOf(schema, fields, match as JsonObject);
  const found = (await listAll(client, list, scope)).find((r) => naturalKeyOf(schema, fields, r) === wanted);
  return fingerprint(schema, undefined, found ?? null);
}

/** One line for each write whose live resource moved since the plan was made. */
export async function liveMoved(plan: Plan, client: Caller, concurrency: number): Promise<string[]> {
  const writes = plan.changes.filter((c) => c.action !== 'noop');
  const moved = await mapPool(writes, concurrency, async (c) => {
    const now = await fingerprintNow(c, client);
    return now === c.live_fingerprint ? undefined : `${c.address}: the live resource changed since the plan was made`;
  });
  return moved.filter((m): m is string => !!m);
}
