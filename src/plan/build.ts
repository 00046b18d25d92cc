// Observed (desired + live) -> Plan: one change per document, in dependency order, each with the exact request
// apply will send. Pure: no network, no clock.
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { endpointPath, readPath } from '../kinds/paths.js';
import { resourceModel } from '../schema/model.js';
import { writableOnly, type JsonObject } from '../schema/values.js';
import { diffSpec, leafPaths, managedFields, overlay, pick } from '../diff/diff.js';
import { dependencyGraph } from '../resolve/refs.js';
import type { Observed } from '../remote/read-live.js';
import type { Change, Document, Plan, RequestSpec } from '../types.js';
import { waves } from '../util/pool.js';
import { driftOf, fingerprint } from './fingerprint.js';
import { byAddress } from './order.js';

export class PlanError extends Error {}

function createRequest(k: KindDef, o: Observed): RequestSpec {
  const ep = k.create!;
  const model = resourceModel(k.schema);
  if (ep.style === 'duplicate') {
    const source = o.source!;
    return {
      method: ep.method,
      path: endpointPath(ep, { source, spec: o.desired }),
      body: { [ep.idField!]: source, [ep.bodyKey!]: o.desired, update_mask: leafPaths(model, o.desired).join(',') },
    };
  }
  return { method: ep.method, path: endpointPath(ep, { spec: o.desired }), body: o.desired };
}

function updateRequest(k: KindDef, o: Observed, mask: string[]): RequestSpec {
  const ep = k.update;
  const model = resourceModel(k.schema);
  const key = k.keyField ? String(o.desired[k.keyField]) : undefined;
  const path = endpointPath(ep, { id: o.id, key, spec: o.desired });
  if (ep.style === 'replace') {
    // The whole resource: live values of the fields the documents leave out, so nothing unmanaged is lost.
    const body = overlay(model, writableOnly(model, o.live ?? {}) ?? {}, o.desired) as JsonObject;
    for (const c of ep.carry ?? []) if (o.live?.[c] !== undefined) body[c] = o.live[c];
    return { method: ep.method, path, body };
  }
  const part = pick(o.desired, mask);
  if (ep.idInResource) part.id = o.id!;
  const body: JsonObject = {};
  if (ep.idField) body[ep.idField] = o.id!;
  for (const [name, from] of Object.entries(ep.extra ?? {})) body[name] = o.desired[from.replace(/^spec\./, '')] ?? null;
  body[ep.bodyKey ?? 'resource'] = part;
  body.update_mask = mask.join(',');
  return { method: ep.method, path, body };
}

function changeFor(k: KindDef, o: Observed, deps: string[], lastApplied?: Record<string, unknown>): Change {
  const model = resourceModel(k.schema);
  const drift = driftOf(k, o.live, lastApplied);
  const base = {
    address: o.doc.address, kind: k.kind, ...(deps.length ? { depends_on: deps } : {}),
    managed: managedFields(model, o.desired), ...(drift.length ? { drift } : {}),
  };
  // What the plan read, for `apply --plan` to check; only writes are checked, so only they need it.
  const seen = () => ({ live_fingerprint: fingerprint(k, o.live) });
  if (o.live === null) {
    if (!k.create || (k.create.style === 'duplicate' && !o.source)) {
      throw new PlanError(`${o.doc.address}: no ${k.kind} to update (it has no id, and tapedeck cannot create one without ${k.createdFrom ?? 'a create endpoint'})`);
    }
    const diff = diffSpec(model, o.desired, null);
    return { ...base, ...seen(), action: 'create', request: createRequest(k, o), diff };
  }
  const diff = diffSpec(model, o.desired, o.live);
  if (!diff.length) return { ...base, action: 'noop', ...(o.id ? { id: o.id } : {}) };
  const paths = diff.map((d) => d.path);
  // Replace-style writes have no mask on the wire; the plan names the changed top-level fields.
  const mask = k.update.style === 'replace' ? [...new Set(paths.map((p) => p.split('.')[0]))] : paths;
  const key = k.keyField ? String(o.desired[k.keyField]) : undefined;
  const read = { path: readPath(k, { id: o.id, key, spec: o.desired }) };
  return { ...base, ...seen(), action: 'update', ...(o.id ? { id: o.id } : {}), update_mask: mask, request: updateRequest(k, o, mask), diff, read };
}

/** A plan that would make a second live default where the kind allows one (per project and type) is an error. */
function checkUniqueLive(registry: Registry, observed: Observed[], liveOthers: (k: KindDef) => JsonObject[]): void {
  for (const o of observed) {
    const k = registry.get(o.doc.kind)!;
    for (const u of k.uniqueWhen ?? []) {
      if (o.desired[u.when] !== true) continue;
      const clash = liveOthers(k).find((r) => r[u.when] === true && r.id !== o.id &&
        u.fields.every((f) => r[f] === o.desired[f]) &&
        !observed.some((x) => x.id === r.id && x.desired[u.when] === false));
      if (clash) throw new PlanError(`${o.doc.address}: would make ${u.message}; the live ${k.kind} ${String(clash.id)} (${String(clash.name ?? '')}) is already the default`);
    }
  }
}

export interface PlanContext {
  /** the documents' dependency graph, when the caller has it already */
  graph?: Map<string, string[]>;
  /** the live resources of a kind that were listed while reading */
  liveListed?: (k: KindDef) => JsonObject[];
  /** the managed fields as the last apply left them (from the state) */
  lastApplied?: (address: string) => Record<string, unknown> | undefined;
}

/** One document's change, computable as soon as it has been read; the apply order is settled in buildPlan. */
export function planOne(registry: Registry, graph: Map<string, string[]>, o: Observed, ctx: PlanContext): Change {
  // Only references to documents that are not known yet make a dependency the apply must wait for.
  const refs = graph.get(o.doc.address) ?? [];
  const text = refs.length ? JSON.stringify([o.desired, o.source ?? null]) : '';
  const deps = refs.filter((a) => text.includes(`\${${a}.id}`));
  return changeFor(registry.get(o.doc.kind)!, o, deps, ctx.lastApplied?.(o.doc.address));
}

/** `early`: changes already computed while reading (to overlap the diff with network waits). */
export function buildPlan(docs: Document[], observed: Map<string, Observed>, registry: Registry, ctx: PlanContext = {}, early = new Map<string, Change>()): Plan {
  const graph = ctx.graph ?? dependencyGraph(docs);
  // By kind level, then address: the documents sorted by address, dealt out to their level in one pass.
  const level = new Map(registry.names().map((kind) => [kind, registry.level(kind)]));
  const byLevel = new Map<number, Document[]>();
  for (const d of byAddress(docs)) {
    const l = level.get(d.kind)!;
    if (!byLevel.has(l)) byLevel.set(l, []);
    byLevel.get(l)!.push(d);
  }
  const ordered = waves(
    [...byLevel].sort(([a], [b]) => a - b).flatMap(([, ds]) => ds),
    (d) => d.address, (d) => graph.get(d.address) ?? [],
  ).flat();
  const obs = ordered.map((d) => observed.get(d.address)!);
  checkUniqueLive(registry, obs, ctx.liveListed ?? (() => []));
  const changes = obs.map((o) => early.get(o.doc.address) ?? planOne(registry, graph, o, ctx));
  const count = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  return { format_version: 1, changes, summary: { create: count('create'), update: count('update'), noop: count('noop') } };
}
