// Finding a resource that a create may have made although its answer was lost (reset, timeout, 5xx, or a crash
// after sending): the listed resource in scope whose managed fields all equal what the create carried, that no
// other state entry claims, made no earlier than the create was sent. Kinds without a list cannot be recovered.
import type { KindDef } from '../kinds/types.js';
import { readPath } from '../kinds/paths.js';
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, type Json, type JsonObject } from '../schema/values.js';
import type { Client } from './client.js';
import { listAll, unwrap } from './list.js';

export interface CreateIntent {
  /** managed path -> normalised value, as the create carried them */
  managed: Record<string, Json>;
  /** the event duplicated, for duplicate-style creates */
  source?: string;
  /** when the create was (first) sent */
  since?: string;
}

/** Clock skew allowed between us and the server when comparing a create_time with `since`. */
const SKEW_MS = 60_000;

export const recoverable = (k: KindDef) => !!k.list && !!k.create;

export async function findCreated(client: Client, k: KindDef, intent: CreateIntent, claimed: Set<string>): Promise<JsonObject | undefined> {
  if (!recoverable(k)) return undefined;
  const model = resourceModel(k.schema);
  let expected = intent.managed;
  let scope: JsonObject = Object.fromEntries(k.list!.scope.map((f) => [f, intent.managed[f] ?? null]));
  const mark = k.create!.placeholder;
  if (intent.source) {
    // A duplicate lives in its source's project, and its `%@` strings hold the source's values.
    const { body } = await client.call('GET', readPath(k, { id: intent.source, spec: {} }));
    const source = unwrap(k, body);
    scope = Object.fromEntries(k.list!.scope.map((f) => [f, source[f] ?? null]));
    expected = Object.fromEntries(Object.entries(intent.managed).map(([p, v]) => {
      const original = valueAt(source, p);
      return [p, mark && typeof v === 'string' && typeof original === 'string' ? v.split(mark).join(original) : v];
    }));
  }
  const earliest = intent.since ? Date.parse(intent.since) - SKEW_MS : -Infinity;
  const candidates = (await listAll(client, k, scope)).reverse().filter((r) =>
    !claimed.has(String(r.id)) &&
    !(typeof r.create_time === 'string' && Date.parse(r.create_time) < earliest) &&
    Object.entries(expected).every(([p, v]) => deepEqual(normalize(fieldAt(model, p), valueAt(r, p)) ?? null, v ?? null)));
  // The newest match is the one this create made, if several look alike (list order is creation order).
  candidates.sort((a, b) => String(b.create_time ?? '').localeCompare(String(a.create_time ?? '')));
  return candidates[0];
}
