// Desired vs live, by meaning. Only fields present in the desired spec are compared; messages are descended
// into, arrays and free-form maps compare whole. Each difference is one field-mask path, the deepest one a mask
// can address.
import type { Field } from '../schema/model.js';
import { deepEqual, isObject, normalize, type Json, type JsonObject } from '../schema/values.js';
import type { DiffEntry } from '../types.js';

function walk(field: Field, desired: JsonObject, live: Json | undefined, prefix: string, out: DiffEntry[]): void {
  const liveObj = isObject(live) ? live : {};
  for (const [name, want] of Object.entries(desired)) {
    const f = field.props?.[name];
    if (!f || f.readOnly) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    const have = liveObj[name];
    if (f.type === 'message' && isObject(want)) {
      walk(f, want, have, path, out);
      continue;
    }
    const before = normalize(f, have);
    const after = normalize(f, want);
    if (!deepEqual(before, after)) out.push({ path, before, after });
  }
}

/** The differences between a desired spec and the live resource (null: not there yet, every field differs). */
export function diffSpec(model: Field, desired: JsonObject, live: JsonObject | null): DiffEntry[] {
  const out: DiffEntry[] = [];
  walk(model, desired, live ?? {}, '', out);
  return out;
}

/** The leaf paths of a spec, as a mask for a body that carries exactly those fields (event duplication). */
export function leafPaths(model: Field, spec: JsonObject, prefix = ''): string[] {
  return Object.entries(spec).flatMap(([name, v]) => {
    const f = model.props?.[name];
    const path = prefix ? `${prefix}.${name}` : name;
    return f?.type === 'message' && isObject(v) && Object.keys(v).length ? leafPaths(f, v, path) : [path];
  });
}

/** The part of `spec` named by mask paths: a body for a PATCH. Cleared fields (null) are left out. */
export function pick(spec: JsonObject, paths: string[]): JsonObject {
  const out: JsonObject = {};
  for (const p of paths) {
    const parts = p.split('.');
    let src: Json | undefined = spec;
    for (const part of parts) src = isObject(src) ? src[part] : undefined;
    if (src === undefined || src === null) continue;
    let dst = out;
    for (const part of parts.slice(0, -1)) {
      if (!isObject(dst[part])) dst[part] = {};
      dst = dst[part] as JsonObject;
    }
    dst[parts[parts.length - 1]] = src;
  }
  return out;
}

/** The live resource with the managed fields of `desired` laid over it: the body of a replace-style write. */
export function overlay(field: Field, live: Json | undefined, desired: Json | undefined): Json | undefined {
  if (desired === undefined) return live;
  if (field.type === 'message' && isObject(desired) && isObject(live)) {
    const out: JsonObject = { ...live };
    for (const [k, v] of Object.entries(desired)) {
      const f = field.props?.[k];
      const merged = f ? overlay(f, live[k], v) : v;
      if (merged === undefined || merged === null) delete out[k];
      else out[k] = merged;
    }
    return out;
  }
  return desired;
}

/** The managed fields of a spec as path -> normalised value (null: managed as unset), the paths a mask would use. */
export function managedFields(
  model: Field,
  spec: JsonObject,
  prefix = '',
  out: Record<string, Json> = {},
): Record<string, Json> {
  for (const [name, v] of Object.entries(spec)) {
    const f = model.props?.[name];
    if (!f || f.readOnly || f.secret) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    if (f.type === 'message' && isObject(v) && Object.keys(v).length) managedFields(f, v, path, out);
    else out[path] = normalize(f, v) ?? null;
  }
  return out;
}
