// Values that came from the environment are sensitive (as Terraform's sensitive variables): the plan keeps them
// to send, but every output and every saved plan shows `(sensitive)` in their place. A saved plan is applied by
// making the plan again (the values come from the environment again) and comparing the masked forms.
import { isObject, type Json, type JsonObject } from '../schema/values.js';
import type { Change, DiffEntry, Plan } from '../types.js';

export const SENSITIVE = '(sensitive)';

/** Whether the value at `path` holds, or is part of, a sensitive field. */
export const touches = (path: string, sensitive: readonly string[]) =>
  sensitive.some((s) => s === path || s.startsWith(`${path}.`) || path.startsWith(`${s}.`));

/** `fields` (path -> value) with the sensitive ones masked. */
function maskFields(fields: Record<string, Json>, sensitive: readonly string[]): Record<string, Json> {
  return Object.fromEntries(Object.entries(fields).map(([p, v]) => [p, touches(p, sensitive) ? SENSITIVE : v]));
}

/** `v` with the value at `path` (if there) masked. */
function maskAt(v: Json | undefined, path: string[]): Json | undefined {
  if (!isObject(v) || !path.length || !(path[0] in v)) return v;
  const [k, ...rest] = path;
  return { ...v, [k]: rest.length ? (maskAt(v[k], rest) as Json) : SENSITIVE };
}

/** A request body with the sensitive fields masked: the resource is the body itself (a create, a replace) or one
 *  of its members (a PATCH's `offer`, a duplicate's `event`). */
function maskBody(body: JsonObject, sensitive: readonly string[]): JsonObject {
  let out = body;
  for (const path of sensitive.map((p) => p.split('.'))) {
    out = maskAt(out, path) as JsonObject;
    for (const [k, x] of Object.entries(out)) if (isObject(x)) out = { ...out, [k]: maskAt(x, path) as Json };
  }
  return out;
}

const maskDiff = (d: DiffEntry[] | undefined, sensitive: readonly string[]) =>
  d?.map((e) => (touches(e.path, sensitive) ? { ...e, ...(e.before !== undefined ? { before: SENSITIVE } : {}), ...(e.after !== undefined ? { after: SENSITIVE } : {}) } : e));

export function maskChange(c: Change): Change {
  const s = c.sensitive;
  if (!s?.length) return c;
  return {
    ...c,
    ...(c.diff ? { diff: maskDiff(c.diff, s) } : {}),
    ...(c.drift ? { drift: maskDiff(c.drift, s) } : {}),
    ...(c.managed ? { managed: maskFields(c.managed, s) } : {}),
    ...(c.expect ? { expect: maskFields(c.expect, s) } : {}),
    ...(c.lookup ? { lookup: { ...c.lookup, match: maskFields(c.lookup.match, s) } } : {}),
    ...(c.request ? { request: { ...c.request, ...(c.request.body ? { body: maskBody(c.request.body, s) } : {}) } } : {}),
  };
}

/** The plan as it may be shown or saved. */
export const maskPlan = (p: Plan): Plan => (p.changes.some((c) => c.sensitive?.length) ? { ...p, changes: p.changes.map(maskChange) } : p);
