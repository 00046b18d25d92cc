// One strategy per request style, chosen in one place (`styleOf`): how a write's body is built from the desired
// spec (and, for a replace, the live resource), and which fields the write sets, by meaning. The planner asks the
// strategy; nothing else in the engine looks at a style.
import type { CreateEndpoint, KindDef, UpdateEndpoint } from '../kinds/types.js';
import { endpointPath, specField } from '../kinds/paths.js';
import { fieldAt, type Field } from '../schema/model.js';
import { normalize, valueAt, writableOnly, type Json, type JsonObject } from '../schema/values.js';
import { leafPaths, managedFields, overlay, pick } from '../diff/diff.js';
import type { Observed, RequestSpec } from '../types.js';

export interface WriteInput {
  k: KindDef;
  model: Field;
  o: Observed;
  /** the changed paths (updates) */
  mask: string[];
  /** the key of a key kind's resource */
  key?: string;
}

interface Strategy<E> {
  request(ep: E, w: WriteInput): RequestSpec;
  /** the mask the plan shows: field-mask paths, or for a replace the changed top-level fields */
  mask?(paths: string[]): string[];
  /** what the write sets: path -> normalised value */
  sets(ep: E, w: WriteInput): Record<string, Json>;
}

const retryable = (ep: { method: string; idempotent?: boolean }) => ep.method !== 'POST' || !!ep.idempotent;

/** An update's request: to the resource's path, sent again only where that is safe, answered with the resource. */
const updateRequest = (ep: UpdateEndpoint, w: WriteInput, body: JsonObject): RequestSpec => ({
  method: ep.method,
  path: endpointPath(ep, { id: w.o.id, key: w.key, spec: w.o.desired }),
  body,
  retry: retryable(ep),
  answer: w.k.read.wrapper,
});

const fields: Strategy<CreateEndpoint & { style: 'fields' }> = {
  request: (ep, { o }) => ({
    method: ep.method,
    path: endpointPath(ep, { spec: o.desired }),
    body: o.desired,
    retry: false,
    answer: ep.wrapper,
  }),
  sets: (_, { model, o }) => managedFields(model, o.desired),
};

const duplicate: Strategy<CreateEndpoint & { style: 'duplicate' }> = {
  request: (ep, { model, o }) => ({
    method: ep.method,
    path: endpointPath(ep, { source: o.source, spec: o.desired }),
    body: {
      [ep.idField]: o.source ?? null,
      [ep.bodyKey]: o.desired,
      update_mask: leafPaths(model, o.desired).join(','),
    },
    retry: false,
    answer: ep.wrapper,
  }),
  // A string holding the placeholder becomes what the server makes of it: not known before, so not checked.
  sets: (ep, { model, o }) =>
    Object.fromEntries(
      Object.entries(managedFields(model, o.desired)).filter(
        ([, v]) => !(typeof v === 'string' && v.includes(ep.placeholder)),
      ),
    ),
};

const maskedValues = ({ model, o, mask }: WriteInput) =>
  Object.fromEntries(mask.map((p) => [p, normalize(fieldAt(model, p), valueAt(o.desired, p)) ?? null]));

const patch: Strategy<UpdateEndpoint & { style: 'patch' }> = {
  request: (ep, w) => {
    const { o, mask } = w;
    const part = pick(o.desired, mask);
    if (ep.idInResource) part.id = o.id ?? null;
    const body: JsonObject = {};
    if (ep.idField) body[ep.idField] = o.id ?? null;
    for (const [name, from] of Object.entries(ep.extra ?? {})) body[name] = o.desired[specField(from)] ?? null;
    body[ep.bodyKey ?? 'resource'] = part;
    body.update_mask = mask.join(',');
    return updateRequest(ep, w, body);
  },
  sets: (_, w) => maskedValues(w),
};

const replace: Strategy<UpdateEndpoint & { style: 'replace' }> = {
  request: (ep, w) => {
    const { model, o } = w;
    // The whole resource: live values of the fields the documents leave out, so nothing unmanaged is lost.
    const body = overlay(model, writableOnly(model, o.live ?? {}) ?? {}, o.desired) as JsonObject;
    for (const c of ep.carry ?? []) if (o.live?.[c] !== undefined) body[c] = o.live[c];
    return updateRequest(ep, w, body);
  },
  // Replace-style writes have no mask on the wire; the plan names the changed top-level fields.
  mask: (paths) => [...new Set(paths.map((p) => p.split('.')[0]))],
  sets: (_, { model, o, k }) => {
    const all = managedFields(model, o.desired);
    if (k.identity.by === 'key') delete all[k.identity.field];
    return all;
  },
};

/** The strategy of an endpoint's style, with the endpoint bound to it. */
export function styleOf(ep: CreateEndpoint | UpdateEndpoint): {
  request(w: WriteInput): RequestSpec;
  mask(paths: string[]): string[];
  sets(w: WriteInput): Record<string, Json>;
} {
  const bind = <E>(s: Strategy<E>, e: E) => ({
    request: (w: WriteInput) => s.request(e, w),
    mask: s.mask ?? ((p: string[]) => p),
    sets: (w: WriteInput) => s.sets(e, w),
  });
  switch (ep.style) {
    case 'fields':
      return bind(fields, ep);
    case 'duplicate':
      return bind(duplicate, ep);
    case 'patch':
      return bind(patch, ep);
    case 'replace':
      return bind(replace, ep);
  }
}
