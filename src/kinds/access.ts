// A kind's reads as closed values (a path filled in, how to take the answer apart), for a change to carry: apply
// and the saved-plan checks use these and never the kind registry.
import { createFor, type KindDef } from './types.js';
import { readPath, type PathValues } from './paths.js';
import { managedFields } from '../diff/diff.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { ListSpec, Lookup, ReadBack } from '../types.js';

export type ReadShape = Omit<ReadBack, 'path'>;

/** How a kind's read answers are taken apart: the same for every resource of the kind, so made once per kind. */
const shapes = new WeakMap<KindDef, ReadShape>();
export function readShapeOf(k: KindDef): ReadShape {
  let shape = shapes.get(k);
  if (!shape) {
    shapes.set(
      k,
      (shape = {
        ...(k.read.wrapper ? { wrapper: k.read.wrapper } : {}),
        missing: k.read.notFound,
        ...(k.identity.by === 'key' ? { key_field: k.identity.field } : {}),
        ...(k.update.style === 'replace' && k.update.carry?.length ? { carry: k.update.carry } : {}),
      }),
    );
  }
  return shape;
}

export const readBackOf = (k: KindDef, v: PathValues): ReadBack => ({ path: readPath(k, v), ...readShapeOf(k) });

export const listSpecOf = (k: KindDef): ListSpec | undefined =>
  k.list && { path: k.list.path, items: k.list.itemsKey, scope: k.list.scope };

/** How a create of this document finds itself after a lost answer; undefined where the kind has no list. */
export function lookupOf(k: KindDef, desired: JsonObject, source: string | undefined): Lookup | undefined {
  const list = listSpecOf(k);
  const ep = createFor(k, source);
  if (!list || !ep) return undefined;
  const placeholder = ep.style === 'duplicate' ? ep.placeholder : undefined;
  return {
    list,
    match: managedFields(resourceModel(k.schema), desired),
    ...(source && placeholder ? { source: { read: readBackOf(k, { id: source, spec: {} }), placeholder } } : {}),
    ...(k.identity.by === 'natural' ? { natural_key: k.identity.fields } : {}),
  };
}
