// Values that came from the environment are sensitive (as Terraform's sensitive variables): the plan keeps them
// to send, but every output and every saved plan shows `(sensitive)` in their place. A saved plan is applied by
// making the plan again (the values come from the environment again) and comparing the masked forms. Only the
// sensitive leaf is masked (`offer_prices.0.price.units`): the other prices of the offer still read as they are.
import { changeModel } from '../kinds/registry.js';
import { fieldAt, type Field } from '../schema/model.js';
import { deepEqual, isObject, stableStringify, valueAt, type Json, type JsonObject } from '../schema/values.js';
import { SENSITIVE, type Change, type DiffEntry, type Plan } from '../types.js';
import { Secrets } from '../util/redact.js';

export { SENSITIVE };
/** The after side of a sensitive leaf whose value differs from the live one: the change stays visible. */
export const SENSITIVE_CHANGED = '(sensitive, changed)';

/** Whether the value at `path` holds, or is part of, a sensitive field. */
export const touches = (path: string, sensitive: readonly string[]) =>
  sensitive.some((s) => s === path || s.startsWith(`${path}.`) || path.startsWith(`${s}.`));

/** The sensitive paths inside the value at `path`, relative to it; null when the whole value is sensitive. */
function inside(path: string, sensitive: readonly string[]): string[][] | null {
  if (sensitive.some((s) => s === path || path.startsWith(`${s}.`))) return null;
  return sensitive.filter((s) => s.startsWith(`${path}.`)).map((s) => s.slice(path.length + 1).split('.'));
}

/** `v` with the value at `path` (object keys and array indexes), if there, replaced by `mark`. */
function maskAt(v: Json | undefined, path: string[], mark: Json = SENSITIVE): Json | undefined {
  if (!path.length) return v === undefined ? v : mark;
  const [k, ...rest] = path;
  if (Array.isArray(v) && /^\d+$/.test(k) && Number(k) < v.length)
    return v.map((x, i) => (i === Number(k) ? (maskAt(x, rest, mark) as Json) : x));
  if (!isObject(v) || !Object.hasOwn(v, k)) return v;
  return { ...v, [k]: maskAt(v[k], rest, mark) as Json };
}

/** `v` masked at each path; a value of the desired side (the document's order, which the paths follow). */
const maskInside = (v: Json | undefined, paths: string[][]) => paths.reduce((x, p) => maskAt(x, p), v);

/** `fields` (path -> value) with the sensitive leaves masked. */
function maskFields(fields: Record<string, Json>, sensitive: readonly string[]): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(fields).map(([p, v]) => {
      const paths = inside(p, sensitive);
      return [p, paths === null ? SENSITIVE : (maskInside(v, paths) as Json)];
    }),
  );
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

/**
 * The path in `before` (the live side) of the element a desired-side path names: an element of a keyed array is
 * found by its key (the live order may differ), any other by its index.
 */
function livePath(
  field: Field | undefined,
  after: Json | undefined,
  before: Json | undefined,
  path: string[],
): string[] | undefined {
  if (!path.length) return [];
  const [k, ...rest] = path;
  if (Array.isArray(after) && Array.isArray(before)) {
    const key = field?.key;
    const mine = after[Number(k)];
    const at = key
      ? before.findIndex(
          (x) =>
            stableStringify(key.map((p) => valueAt(x, p) ?? null)) ===
            stableStringify(key.map((p) => valueAt(mine, p) ?? null)),
        )
      : Number(k);
    const tail = at < 0 ? undefined : livePath(field?.items, mine, before[at], rest);
    return tail && [String(at), ...tail];
  }
  if (!isObject(after) || !isObject(before)) return undefined;
  const tail = livePath(field?.type === 'message' ? field.props?.[k] : undefined, after[k], before[k], rest);
  return tail && [k, ...tail];
}

const leafAt = (v: Json | undefined, path: string[]) =>
  path.reduce<Json | undefined>((x, k) => (Array.isArray(x) ? x[Number(k)] : isObject(x) ? x[k] : undefined), v);

/** A diff entry with its sensitive leaves masked on both sides; a leaf that changed says so on the after side. */
function maskEntry(e: DiffEntry, sensitive: readonly string[], model: Field | undefined): DiffEntry {
  const paths = inside(e.path, sensitive);
  if (paths === null)
    return {
      ...e,
      ...(e.before !== undefined ? { before: SENSITIVE } : {}),
      ...(e.after !== undefined ? { after: SENSITIVE } : {}),
    };
  if (!paths.length) return e;
  const field = model && fieldAt(model, e.path);
  let { before, after } = e;
  for (const p of paths) {
    const live = livePath(field, e.after, e.before, p);
    // A leaf with no live side (a create, an added element) is new as its row already says: only `(sensitive)`.
    const changed = live !== undefined && !deepEqual(leafAt(e.before, live) ?? null, leafAt(e.after, p) ?? null);
    if (live) before = maskAt(before, live);
    after = maskAt(after, p, changed ? SENSITIVE_CHANGED : SENSITIVE);
  }
  return { ...e, before, after };
}

// Drift compares the last apply with the live side, neither in the document's order: its fields are masked whole.
const maskDrift = (d: DiffEntry[], sensitive: readonly string[]) =>
  d.map((e) =>
    touches(e.path, sensitive)
      ? {
          ...e,
          ...(e.before !== undefined ? { before: SENSITIVE } : {}),
          ...(e.after !== undefined ? { after: SENSITIVE } : {}),
        }
      : e,
  );

/** The leaves of `sent` that `masked` (the same body, masked) hides, as text. */
function hiddenLeaves(sent: Json | undefined, masked: Json | undefined): string[] {
  if (masked === SENSITIVE || masked === SENSITIVE_CHANGED)
    return sent === null || sent === undefined ? [] : isObject(sent) || Array.isArray(sent) ? [] : [String(sent)];
  if (Array.isArray(sent) && Array.isArray(masked)) return sent.flatMap((x, i) => hiddenLeaves(x, masked[i]));
  if (isObject(sent) && isObject(masked)) return Object.keys(sent).flatMap((k) => hiddenLeaves(sent[k], masked[k]));
  return [];
}

/**
 * The values from the environment a change's request sends, as secrets: what the platform answers that request
 * (an error that quotes what it was sent) is masked of them, whatever their length above Secrets' minimum, where the
 * output's masking takes only values of 8 characters or more.
 */
export function sentSecrets(c: Change): Secrets {
  const secrets = new Secrets();
  const body = c.request?.body;
  if (c.sensitive?.length && body) for (const v of hiddenLeaves(body, maskBody(body, c.sensitive))) secrets.add(v);
  return secrets;
}

export function maskChange(c: Change): Change {
  const s = c.sensitive;
  if (!s?.length) return c;
  const model = c.diff ? changeModel(c) : undefined;
  return {
    ...c,
    ...(c.diff ? { diff: c.diff.map((e) => maskEntry(e, s, model)) } : {}),
    ...(c.drift ? { drift: maskDrift(c.drift, s) } : {}),
    ...(c.managed ? { managed: maskFields(c.managed, s) } : {}),
    ...(c.expect ? { expect: maskFields(c.expect, s) } : {}),
    ...(c.lookup ? { lookup: { ...c.lookup, match: maskFields(c.lookup.match, s) } } : {}),
    ...(c.request
      ? { request: { ...c.request, ...(c.request.body ? { body: maskBody(c.request.body, s) } : {}) } }
      : {}),
  };
}

/** The plan as it may be shown or saved. */
export const maskPlan = (p: Plan): Plan =>
  p.changes.some((c) => c.sensitive?.length) ? { ...p, changes: p.changes.map(maskChange) } : p;
