// The two shapes of a change: one that writes (every field) and one of the state alone (noop, move, release),
// each built field by field in the plan JSON's order (CHANGE_FIELDS) so that every change of a shape shares one
// hidden class.
import { CHANGE_FIELDS } from '../change-fields.js';
import type { Change } from '../types.js';

/** What every change of a document has, whatever its action. */
export type ChangeBase = Pick<Change, 'address' | 'kind' | 'depends_on' | 'managed' | 'drift' | 'sensitive'>;
const BASE = new Set<keyof Change>(['address', 'kind', 'depends_on', 'managed', 'drift', 'sensitive']);
/** What only a write carries: a change of the state alone (noop, move, release; most of a large plan) has fewer. */
const WRITE_ONLY = new Set<keyof Change>([
  'update_mask',
  'request',
  'diff',
  'schema',
  'live_fingerprint',
  'lookup',
  'read',
  'expect',
]);
const STATE_FIELDS = CHANGE_FIELDS.filter((f) => !WRITE_ONLY.has(f));

/**
 * A change with every one of `fields`, in the plan JSON's order, those it does not have left undefined (JSON and the
 * saved plan's checksum leave them out). Set one by one in the same order, every change of a shape shares one hidden
 * class: a spread of optional parts gave each change a class of its own (docs/performance.md).
 */
function shaped(fields: readonly (keyof Change)[], b: Partial<Change>, c: Partial<Change>): Change {
  const out: Partial<Record<keyof Change, unknown>> = {};
  for (const f of fields) out[f] = (BASE.has(f) ? b : c)[f];
  return out as Change;
}

/** A change that writes (create, update, replace, restore), with every field of a change. */
export function shapedChange(b: ChangeBase, c: Omit<Change, keyof ChangeBase>): Change {
  return shaped(CHANGE_FIELDS, b, c);
}

/** A change of the state alone: the same order without a write's fields. */
export function stateChange(b: Partial<ChangeBase>, c: Pick<Change, 'action' | 'id' | 'moved_from' | 'notes'>): Change {
  return shaped(STATE_FIELDS, b, c);
}
