// After a write whose answer was lost (reset, timeout) or refused as stale (a retried policy PUT meets the etag
// its own first attempt made), read the resource back: if it already holds what the write carried, the write
// took effect. Nothing is re-decided: the plan's own request is the measure.
import type { KindDef } from '../kinds/types.js';
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, type Json, type JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import { unwrap } from '../remote/list.js';
import type { Change } from '../types.js';

/** The fields the write set, as [path, value]: the masked paths of a PATCH, the top-level fields of a replace. */
function carried(k: KindDef, c: Change, body: JsonObject): Array<[string, Json | undefined]> {
  const ep = k.update;
  if (ep.style === 'patch') {
    const part = body[ep.bodyKey ?? 'resource'];
    return (c.update_mask ?? []).map((p) => [p, valueAt(part, p)]);
  }
  return Object.keys(body).filter((f) => !(ep.carry ?? []).includes(f) && f !== k.keyField).map((f) => [f, body[f]]);
}

/** `sent` is the body as sent (references filled in); `readPath` likewise. */
export async function writeTookEffect(k: KindDef, c: Change, sent: JsonObject, readPath: string, client: Client): Promise<boolean> {
  try {
    const { body } = await client.call('GET', readPath);
    const live = unwrap(k, body);
    const model = resourceModel(k.schema);
    return carried(k, c, sent).every(([p, v]) => deepEqual(normalize(fieldAt(model, p), valueAt(live, p)), normalize(fieldAt(model, p), v)));
  } catch {
    return false;
  }
}
