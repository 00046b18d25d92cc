// Observed (desired + live) -> Plan: one change per document, in dependency order, each with the exact request
// apply will send. Pure: no network, no clock.
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { lookupOf, readBackOf } from '../kinds/access.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import { diffSpec, managedFields } from '../diff/diff.js';
import { dependencyGraph } from '../resolve/refs.js';
import type { Change, Document, Lookup, Observed, Plan } from '../types.js';
import { waves } from '../util/pool.js';
import { driftOf, fingerprint } from './fingerprint.js';
import { byAddress } from './order.js';
import { styleOf } from './requests.js';

export class PlanError extends Error {}

function changeFor(k: KindDef, o: Observed, deps: string[], lastApplied?: Record<string, unknown>): Change {
  const model = resourceModel(k.schema);
  const drift = driftOf(k.schema, o.live, lastApplied);
  const base = {
    address: o.doc.address, kind: k.kind, ...(deps.length ? { depends_on: deps } : {}),
    managed: managedFields(model, o.desired), ...(drift.length ? { drift } : {}),
  };
  const key = k.identity.by === 'key' ? String(o.desired[k.identity.field]) : undefined;
  // What a write needs at apply, and what the plan read for `apply --plan` to check: only writes carry it.
  const closed = (lookup?: Lookup) => ({
    schema: k.schema, live_fingerprint: fingerprint(k.schema, readBackOf(k, { spec: {} }).carry, o.live),
    ...(lookup ? { lookup } : {}),
  });
  if (o.live === null) {
    const ep = k.create;
    if (!ep || (ep.style === 'duplicate' && !o.source)) {
      throw new PlanError(`${o.doc.address}: no ${k.kind} to update (it has no id, and tapedeck cannot create one without ${k.createdFrom ?? 'a create endpoint'})`);
    }
    const diff = diffSpec(model, o.desired, null);
    const request = styleOf(ep).request({ k, model, o, mask: [], key });
    return { ...base, action: 'create', request, diff, ...closed(lookupOf(k, o.desired, o.source)) };
  }
  const diff = diffSpec(model, o.desired, o.live);
  if (!diff.length) return { ...base, action: 'noop', ...(o.id ? { id: o.id } : {}) };
  const style = styleOf(k.update);
  const w = { k, model, o, mask: diff.map((d) => d.path), key };
  return {
    ...base, action: 'update', ...(o.id ? { id: o.id } : {}), update_mask: style.mask(w.mask), request: style.request(w), diff,
    ...closed(), read: readBackOf(k, { id: o.id, key, spec: o.desired }), expect: style.sets(w),
  };
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

/** One document's change. */
function planOne(registry: Registry, graph: Map<string, string[]>, o: Observed, ctx: PlanContext): Change {
  // Only references to documents that are not known yet make a dependency the apply must wait for.
  const refs = graph.get(o.doc.address) ?? [];
  const text = refs.length ? JSON.stringify([o.desired, o.source ?? null]) : '';
  const deps = refs.filter((a) => text.includes(`\${${a}.id}`));
  return changeFor(registry.get(o.doc.kind)!, o, deps, ctx.lastApplied?.(o.doc.address));
}

/** The changes, in apply order: by dependency wave, then kind level, then address; and their counts. */
export function planChanges(docs: Document[], observed: Map<string, Observed>, registry: Registry, ctx: PlanContext = {}): Pick<Plan, 'changes' | 'summary'> {
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
  const changes = obs.map((o) => planOne(registry, graph, o, ctx));
  const count = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  return { changes, summary: { create: count('create'), update: count('update'), noop: count('noop') } };
}
