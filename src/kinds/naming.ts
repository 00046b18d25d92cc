// The fields of a document that name its resource or that a request's path or query is built from: the schema's
// x-names fields (name, id, moved_from, duplicate_from) and x-identity ones (project_id, a policy's key, ...), and
// the spec fields the kind file puts in a path or query or beside the resource (`{spec.x}`, `query`, a list's
// `scope`, `extra`) or matches the live resource by (natural identity). A value from the environment there would
// show in paths, ids, saved plans and the state, so validate refuses one (and so do the editor schemas).
import { inlinedSchema } from '../schema/resolve.js';
import type { JsonSchema } from '../schema/model.js';
import type { KindDef } from './types.js';

const SPEC_FIELD = /\bspec\.([a-z_][a-z0-9_]*)/g;

/** Dotted paths: `id`, `spec.project_id`. */
function namingFieldsOf(k: KindDef): Set<string> {
  const schema = inlinedSchema(k.schema);
  const identity = (props: Record<string, JsonSchema> = {}) =>
    Object.keys(props).filter((p) => props[p]['x-identity'] === true || props[p]['x-names'] === true);
  const { spec, ...top } = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const fromKind = [
    ...[...JSON.stringify([k.read, k.list, k.create, k.duplicate, k.update]).matchAll(SPEC_FIELD)].map((m) => m[1]),
    ...(k.list?.scope ?? []),
    ...(k.identity.by === 'key' ? [k.identity.field] : k.identity.by === 'natural' ? k.identity.fields : []),
  ];
  return new Set([...identity(top), ...[...identity(spec?.properties), ...fromKind].map((f) => `spec.${f}`)]);
}

const cache = new Map<string, Set<string>>();
export function namingFields(k: KindDef): Set<string> {
  let fields = cache.get(k.kind);
  if (!fields) cache.set(k.kind, (fields = namingFieldsOf(k)));
  return fields;
}
