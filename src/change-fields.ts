// The fields of a change, listed once (types.ts defines Change): a field added to one and not the other fails the
// typecheck.
import type { Change } from './types.js';

/**
 * Every field of a change, once, in the plan JSON's order: plans are built from this list (src/plan/change-shape.ts), so
 * each change has the same hidden class, and a field added to Change but not here fails the typecheck.
 */
// One line per group: what every change has, its action and ids, what a write carries, the rest.
// prettier-ignore
export const CHANGE_FIELDS = [
  'address', 'kind', 'depends_on', 'managed', 'drift', 'sensitive',
  'action', 'id', 'moved_from', 'released_id',
  'update_mask', 'request', 'diff', 'schema', 'live_fingerprint', 'lookup', 'read', 'expect',
  'requires', 'notes', 'digest', 'live_events',
] as const;
type Listed = (typeof CHANGE_FIELDS)[number];
type Unlisted = Exclude<keyof Change, Listed>;
type NoField = Exclude<Listed, keyof Change>;
/** Names the fields CHANGE_FIELDS leaves out (or has that Change does not) when it does not list exactly Change's. */
const listsEveryField: [Unlisted, NoField] extends [never, never]
  ? true
  : { unlisted: Unlisted; not_a_field: NoField } = true;
void listsEveryField;
