// What a saved plan records of what it read, so `apply --plan` can tell whether the world moved since.
import { createHash } from 'node:crypto';
import { fieldAt, resourceModel } from '../schema/model.js';
import { deepEqual, normalize, valueAt, stableStringify, writableOnly, type JsonObject } from '../schema/values.js';
import type { Document, DiffEntry } from '../types.js';
import { documentHash } from '../resolve/digest.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A resource as read, by meaning: its writable fields normalised, plus the values a replace carries back (etag).
 * Response-only fields that move on their own (last_update_time, connected) do not count. `absent` when not there.
 */
export function fingerprint(schema: string, carry: string[] | undefined, live: JsonObject | null): string {
  if (!live) return 'absent';
  const model = resourceModel(schema);
  const carried = Object.fromEntries((carry ?? []).map((c) => [c, live[c] ?? null]));
  return sha(stableStringify([normalize(model, writableOnly(model, live)) ?? null, carried])).slice(0, 32);
}

/** The configuration as planned: every document after variables were filled in, each by its hash (made once per
 *  run: the digests of --refresh changed share them), in address order (plain code-unit order: the hash needs an
 *  order, not the natural one people read). */
export function configurationHash(docs: Document[]): string {
  const hash = createHash('sha256').update('[');
  const sorted = [...docs].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  sorted.forEach((d, i) => hash.update(i ? `,${documentHash(d)}` : documentHash(d)));
  return hash.update(']').digest('hex');
}

/** Managed fields whose live value is no longer what the last apply left (changed outside tapedeck). */
export function driftOf(
  schema: string,
  live: JsonObject | null,
  lastApplied: Record<string, unknown> | undefined,
): DiffEntry[] {
  if (!live || !lastApplied) return [];
  const model = resourceModel(schema);
  const out: DiffEntry[] = [];
  for (const [path, was] of Object.entries(lastApplied)) {
    const field = fieldAt(model, path);
    const now = normalize(field, valueAt(live, path));
    const before = normalize(field, was);
    if (!deepEqual(now ?? null, before ?? null)) out.push({ path, before, after: now });
  }
  return out;
}
