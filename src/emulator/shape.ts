// Request bodies checked against the field model, as the platform's JSON decoder would: unknown fields, wrong types
// and a value a closed enum does not have are invalid_argument; so are the platform's value rules the schemas state
// (ISO codes, google.type.Money). Also the update-mask rules of PATCH.
import type { Field } from '../schema/model.js';
import { fieldAt } from '../schema/model.js';
import { moneySignProblem, nanosRangeProblem } from '../schema/money.js';
import { canonicalInt64, canonicalTimestamp, isObject, valueAt, type Json, type JsonObject } from '../schema/values.js';
import { slipOf } from '../schema/spelling.js';
import { bad } from './fault.js';

/** Throws invalid_argument naming the first field of `v` that the model does not accept. */
export function checkShape(field: Field, v: unknown, path: string): void {
  if (v === null || v === undefined) return;
  const fail = (what: string) => {
    throw bad(`${path || 'body'}: ${what}`);
  };
  switch (field.type) {
    case 'message':
      if (!isObject(v)) fail('expected an object');
      for (const [k, x] of Object.entries(v as JsonObject)) {
        const f = field.props?.[k];
        if (!f) throw bad(`unknown field ${path ? `${path}.` : ''}${k}`);
        checkShape(f!, x, path ? `${path}.${k}` : k);
      }
      if (field.money) {
        const problem = nanosRangeProblem(v) ?? moneySignProblem(v);
        if (problem) fail(problem);
      }
      return;
    case 'array':
      if (!Array.isArray(v)) fail('expected an array');
      (v as unknown[]).forEach((x, i) => checkShape(field.items!, x, `${path}[${i}]`));
      return;
    case 'map':
      if (!isObject(v)) fail('expected an object');
      return;
    case 'int64':
      if (canonicalInt64(v) === undefined) fail('expected an int64 (decimal string)');
      return;
    case 'timestamp':
      if (typeof v !== 'string' || (v !== '' && !canonicalTimestamp(v))) fail('expected an RFC 3339 timestamp');
      return;
    case 'enum':
    case 'string':
      if (typeof v !== 'string') fail('expected a string');
      // "" is the unset value, which the platform's zero values hold too.
      if (v !== '' && !takes(field, v as string)) fail(`invalid value ${JSON.stringify(v)}`);
      return;
    case 'integer':
      if (!Number.isInteger(v)) fail('expected an integer');
      return;
    case 'number':
      if (typeof v !== 'number') fail('expected a number');
      return;
    case 'boolean':
      if (typeof v !== 'boolean') fail('expected a boolean');
      return;
    default:
  }
}

/**
 * Whether the platform takes a value: a closed list's member; for an enum whose full list is not public, an enum
 * name (protojson knows no other spelling) that is no slip of a known one. The platform's decoder refuses every name
 * it does not have; the emulator knows only the published ones, so it refuses what is surely none of the platform's
 * (VISIBILITY_PUBLISHD), the same values `validate` calls an error, and takes any other name as a value it may have.
 */
function takes(field: Field, v: string): boolean {
  if (field.allowed) return field.allowed.includes(v);
  if (field.type !== 'enum') return true;
  if (!ENUM_NAME.test(v)) return false;
  return !field.known || field.known.includes(v) || !slipOf(v, field.known);
}
const ENUM_NAME = /^[A-Z][A-Z0-9_]*$/;

function setPath(obj: JsonObject, path: string, value: Json | undefined): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as JsonObject;
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/** The paths of an update mask, checked: each must name a writable field reachable through messages only. */
export function parseMask(model: Field, mask: unknown, body: JsonObject): string[] {
  if (mask === undefined || mask === null || mask === '') {
    // Google AIP-134: no mask means every field present in the body (output-only ones are ignored).
    return Object.keys(body).filter((k) => model.props?.[k] && !model.props[k].readOnly);
  }
  if (typeof mask !== 'string') throw bad('update_mask must be a comma-separated string of field paths');
  const paths = mask.split(',').map((p) => p.trim());
  for (const p of paths) {
    if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/.test(p)) throw bad(`update_mask: malformed path "${p}"`);
    const parts = p.split('.');
    for (let i = 1; i <= parts.length; i++) {
      const f = fieldAt(model, parts.slice(0, i).join('.'));
      if (!f) throw bad(`update_mask: unknown field path "${p}"`);
      if (f.readOnly) throw bad(`update_mask: "${p}" is output only and cannot be updated`);
    }
  }
  return paths;
}

/**
 * Copies each masked path from `body` into `target`: a path absent from the body clears the field, a path naming
 * a message replaces the whole message. `transform` lets a caller rewrite copied strings (event duplication's %@).
 */
export function applyMask(
  target: JsonObject,
  body: JsonObject,
  paths: string[],
  transform?: (path: string, v: Json) => Json,
): void {
  for (const p of paths) {
    const v = valueAt(body, p);
    setPath(target, p, v === undefined || !transform ? v : transform(p, v));
  }
}
