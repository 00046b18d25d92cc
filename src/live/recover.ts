// Finding a resource that a create may have made although its answer was lost (reset, timeout, 5xx, or a crash
// after sending): the listed resource in scope whose managed fields all equal what the create carried, that no
// other state entry claims, made no earlier than the create was sent. Everything it needs is in the change's
// `lookup`; a create without one cannot be looked up.
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, type JsonObject } from '../schema/values.js';
import type { ListSpec, Lookup } from '../types.js';
import type { Caller } from '../remote/client.js';
import { listAll, unwrap } from './list.js';

/** Clock skew allowed between us and the server when comparing a create_time with `since`. */
const SKEW_MS = 60_000;

export interface Search {
  lookup: Lookup;
  /** the kind's schema file: how field values compare */
  schema: string;
  /** when the create was (first) sent */
  since?: string;
  /** ids that are already someone's; the one found is added, so twins of one run never share a resource */
  claimed: Set<string>;
  /** ids that matched before the create was sent: never this create's, whatever their create_time says */
  existing?: readonly string[];
}

export type Lister = (client: Caller, list: ListSpec, scope: JsonObject) => Promise<JsonObject[]>;

/** Every listed resource in the lookup's scope whose managed fields equal what the create carries. */
export async function matching(
  client: Caller,
  lookup: Lookup,
  schema: string,
  list: Lister = listAll,
): Promise<JsonObject[]> {
  const model = resourceModel(schema);
  let expected = lookup.match;
  let scope: JsonObject = Object.fromEntries(lookup.list.scope.map((f) => [f, lookup.match[f] ?? null]));
  if (lookup.source) {
    // A duplicate lives in its source's project, and its placeholder strings hold the source's values.
    const { read, placeholder } = lookup.source;
    const source = unwrap(read, (await client.call('GET', read.path)).body);
    scope = Object.fromEntries(lookup.list.scope.map((f) => [f, source[f] ?? null]));
    expected = Object.fromEntries(
      Object.entries(lookup.match).map(([p, v]) => {
        const original = valueAt(source, p);
        return [p, typeof v === 'string' && typeof original === 'string' ? v.split(placeholder).join(original) : v];
      }),
    );
  }
  return (await list(client, lookup.list, scope)).filter((r) =>
    Object.entries(expected).every(([p, v]) =>
      deepEqual(normalize(fieldAt(model, p), valueAt(r, p)) ?? null, v ?? null),
    ),
  );
}

/**
 * The resource this create made, if the platform has it: a match that nobody claims, that did not exist before
 * the create was sent, made no earlier than it was sent where the kind says when. Claimed for it at once (the
 * choice and the claim happen in one turn of the event loop, so concurrent lookups never pick the same one).
 */
export async function findCreated(client: Caller, s: Search): Promise<JsonObject | undefined> {
  const earliest = s.since ? Date.parse(s.since) - SKEW_MS : -Infinity;
  const existing = new Set(s.existing ?? []);
  const candidates = (await matching(client, s.lookup, s.schema))
    .reverse()
    .filter(
      (r) =>
        !s.claimed.has(String(r.id)) &&
        !existing.has(String(r.id)) &&
        !(typeof r.create_time === 'string' && Date.parse(r.create_time) < earliest),
    );
  // The newest match is the one this create made, if several look alike (list order is creation order).
  candidates.sort((a, b) => String(b.create_time ?? '').localeCompare(String(a.create_time ?? '')));
  const found = candidates[0];
  if (found) s.claimed.add(String(found.id));
  return found;
}
