// State entries no document declares any more: each released (the API has no delete), and a create that looks
// like a rename of one says so.
import { deepEqual, type Json } from '../schema/values.js';
import type { Change } from '../types.js';
import { stateChange } from './change-shape.js';

/** A state entry no document declares any more: released (the API has no delete), or the likely source of a rename. */
export interface Undeclared {
  address: string;
  kind: string;
  id?: string;
  fields?: Record<string, unknown>;
}

export function released(u: Undeclared): Change {
  return stateChange(
    { address: u.address, kind: u.kind },
    { action: 'release', id: u.id || undefined, notes: ['no longer declared; it stays on the platform'] },
  );
}

/** A create whose managed fields equal a released entry's: most likely a rename, which would make a second one. */
export function renameHint(c: Change, gone: Undeclared[]): string[] {
  const twin = gone.find(
    (u) => u.kind === c.kind && u.fields && deepEqual(u.fields as Json, (c.managed ?? {}) as Json),
  );
  return twin
    ? [
        `this looks like a rename of ${twin.address}: add \`moved_from: ${twin.address}\` to the document to keep that ${c.kind} instead of creating a second one`,
      ]
    : [];
}
