// After a write whose answer was lost (reset, timeout) or refused as stale (a retried policy PUT meets the etag
// its own first attempt made), read the resource back: if it already holds what the write set, the write took
// effect. Nothing is re-decided: the change's own `expect` is the measure.
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, type Json } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import { unwrap } from '../remote/list.js';
import type { Change } from '../types.js';

/** Whether the resource holds what the write set: `unknown` when it cannot be read. `readPath` and `expect` with
 *  references filled in. */
export async function writeTookEffect(c: Change, readPath: string, expect: Record<string, Json>, client: Client): Promise<'yes' | 'no' | 'unknown'> {
  let live;
  try {
    live = unwrap(c.read!, (await client.call('GET', readPath)).body);
  } catch {
    return 'unknown';
  }
  const model = resourceModel(c.schema!);
  return Object.entries(expect).every(([p, v]) => deepEqual(normalize(fieldAt(model, p), valueAt(live, p)) ?? null, v ?? null)) ? 'yes' : 'no';
}
