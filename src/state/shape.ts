// The shape of a state file, checked before anything uses it: a file edited by hand, merged badly or written by
// something else is refused with where it is wrong, instead of failing later with a JavaScript message.
import { isObject } from '../schema/values.js';

const ADDRESS = /^([A-Za-z]+)\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const isTime = (v: unknown) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) && !Number.isNaN(Date.parse(v));

/** What is wrong with one entry, as `where: problem`; undefined when nothing is. */
function checkEntry(address: string, e: unknown): string | undefined {
  const at = `resources[${JSON.stringify(address)}]`;
  const kind = ADDRESS.exec(address)?.[1];
  if (!kind) return `${at} is not an address (Kind/name)`;
  if (!isObject(e)) return `${at} must be an object (kind, id, fields)`;
  if (typeof e.kind !== 'string') return `${at}.kind must be a string`;
  if (e.kind !== kind) return `${at}.kind is ${JSON.stringify(e.kind)}, not the kind of its address`;
  if (e.id !== undefined && (typeof e.id !== 'string' || !e.id)) return `${at}.id must be a non-empty string`;
  if (e.fields !== undefined && !isObject(e.fields)) return `${at}.fields must be an object of field paths and values`;
  if (e.digest !== undefined && typeof e.digest !== 'string') return `${at}.digest must be a string`;
  if (e.pending_since !== undefined && !isTime(e.pending_since)) return `${at}.pending_since must be an RFC 3339 time`;
  if (e.released_at !== undefined && !isTime(e.released_at)) return `${at}.released_at must be an RFC 3339 time`;
  if (e.existing !== undefined && !(Array.isArray(e.existing) && e.existing.every((x) => typeof x === 'string')))
    return `${at}.existing must be a list of ids`;
  return undefined;
}

/** What is wrong with a parsed state file; undefined when it can be used. */
export function checkState(data: unknown, format: number): string | undefined {
  if (!isObject(data)) return 'is not a tapedeck state file (not a JSON object)';
  if (data.format_version !== format)
    return `has format_version ${JSON.stringify(data.format_version)}; this tapedeck reads version ${format}`;
  if (data.lineage !== undefined && typeof data.lineage !== 'string') return 'lineage must be a string';
  if (data.configuration !== undefined && (typeof data.configuration !== 'string' || !data.configuration))
    return 'configuration must be a non-empty string';
  if (data.serial !== undefined && !(Number.isSafeInteger(data.serial) && (data.serial as number) >= 0))
    return 'serial must be a whole number of at least 0';
  if (data.moved_to !== undefined) {
    const m = data.moved_to;
    if (!isObject(m) || typeof m.state !== 'string' || typeof m.environment !== 'string' || !isTime(m.at))
      return 'moved_to must be an object of state, environment and at (an RFC 3339 time)';
  }
  if (!isObject(data.resources)) return 'resources must be an object of addresses';
  for (const [address, e] of Object.entries(data.resources)) {
    const problem = checkEntry(address, e);
    if (problem) return problem;
  }
  return undefined;
}
