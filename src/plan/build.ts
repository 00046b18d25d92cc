// Observed (desired + live) -> Plan: one change per document, in dependency order, each with the exact request
// apply will send. Pure: no network, no clock.
import type { Registry } from '../kinds/registry.js';
import { creatable, createFor, type KindDef } from '../kinds/types.js';
import { lookupOf, readBackOf, readShapeOf } from '../kinds/access.js';
import { resourceModel } from '../schema/model.js';
import { type Json, type JsonObject } from '../schema/values.js';
import { diffSpec, managedFields } from '../diff/diff.js';
import { withEscapes } from '../resolve/desired.js';
import { dependencyGraph, holdsEscapes } from '../resolve/refs.js';
import type { Change, Document, Observed, Plan } from '../types.js';
import { shapedChange, stateChange, type ChangeBase } from './change-shape.js';
import { identityMoved } from '../resolve/identity.js';
import { summaryOf } from './summary.js';
import { released, renameHint, type Undeclared } from './releases.js';
import { waves } from '../util/pool.js';
import { driftOf, fingerprint } from './fingerprint.js';
import { byAddress, naturalCompare } from './order.js';
import { styleOf } from './requests.js';
import { UserError } from '../errors.js';
import { liveEventsOf } from './live-links.js';
import { checkUniqueLive, handovers } from './defaults.js';

/** A document that cannot be planned as it stands: the user's to fix. */
const PLAN = { code: 'E_PLAN' } as const;

const nonEmpty = <T>(xs: T[] | undefined): T[] | undefined => (xs?.length ? xs : undefined);

/** The managed fields, or the desired spec itself where they are the same (a flat spec of set values, as most
 *  are): one object per change instead of two. Neither is changed once planned. */
function managedOf(model: ReturnType<typeof resourceModel>, desired: JsonObject): Record<string, Json> {
  const managed = managedFields(model, desired);
  const keys = Object.keys(managed);
  const own = Object.keys(desired);
  return keys.length === own.length && keys.every((k, i) => k === own[i] && managed[k] === desired[k])
    ? desired
    : managed;
}

/** What a change is planned from: the kind and its model, the observation, the change's common part, and a key
 *  kind's key. */
interface Planning {
  k: KindDef;
  model: ReturnType<typeof resourceModel>;
  o: Observed;
  base: ChangeBase;
  key: string | undefined;
}

function changeFor(k: KindDef, o: Observed, deps: string[], lastApplied?: Record<string, unknown>): Change {
  const model = resourceModel(k.schema);
  const drift = driftOf(k.schema, o.live, lastApplied);
  const base: ChangeBase = {
    address: o.doc.address,
    kind: k.kind,
    depends_on: nonEmpty(deps),
    managed: managedOf(model, o.desired),
    drift: nonEmpty(drift),
    sensitive: nonEmpty(o.doc.sensitive),
  };
  const key = k.identity.by === 'key' ? String(o.desired[k.identity.field]) : undefined;
  const p: Planning = { k, model, o, base, key };
  if (o.live === null) return createChange(p);
  const otherIdentity = identityMoved(model, o);
  if (otherIdentity.length) {
    // Another project is another resource: a PATCH of the identity (or calling it drift) would be wrong.
    const what = otherIdentity
      .map(([f, was, now]) => `${f} ${JSON.stringify(was)} → ${JSON.stringify(now)}`)
      .join(', ');
    if (!o.from_state || !creatable(k))
      throw new UserError(
        `${o.doc.address}: ${what}: that names another ${k.kind}, and ${o.id} cannot be moved; ${creatable(k) ? 'remove id to create a new one' : 'name the other one by its id'}`,
        PLAN,
      );
    return createChange(
      p,
      [`${what}: a new ${k.kind} is created; the old one, ${o.id}, is released and stays on the platform`],
      o.id,
    );
  }
  const diff = diffSpec(model, o.desired, o.live);
  // A released resource taken back is a restore, whether fields differ (brought back like an update) or not.
  const same = o.restored ? 'restore' : o.moved_from ? 'move' : 'noop';
  if (!diff.length)
    return stateChange(base, { action: same, id: o.id || undefined, moved_from: o.moved_from || undefined });
  const style = styleOf(k.update);
  const w = { k, model, o, mask: diff.map((d) => d.path), key };
  return shapedChange(base, {
    action: o.restored ? 'restore' : 'update',
    id: o.id || undefined,
    moved_from: o.moved_from || undefined,
    update_mask: style.mask(w.mask),
    request: style.request(w),
    diff,
    schema: k.schema,
    live_fingerprint: fingerprinted(p),
    read: readBackOf(k, { id: o.id, key, spec: o.desired }),
    expect: style.sets(w),
  });
}

/** What a write needs at apply, and what the plan read for `apply --plan` to check: only writes carry it. */
const fingerprinted = ({ k, o }: Planning) => fingerprint(k.schema, readShapeOf(k).carry, o.live);

/**
 * A create. A rename's create (its resource gone, --recreate-missing, or another identity) still moves the state
 * entry: the old address leaves the state when it is applied. `released`: the id a replace lets go.
 */
function createChange(p: Planning, notes: string[] = [], released?: string): Change {
  const { k, model, o, base, key } = p;
  const ep = createFor(k, o.source);
  if (!ep) {
    throw new UserError(
      `${o.doc.address}: no ${k.kind} to update (it has no id, and tapedeck cannot create one without ${k.createdFrom ?? 'a create endpoint'})`,
      PLAN,
    );
  }
  const style = styleOf(ep);
  const w = { k, model, o, mask: [], key };
  return shapedChange(base, {
    action: released ? 'replace' : 'create',
    moved_from: o.moved_from || undefined,
    released_id: released,
    request: style.request(w),
    diff: diffSpec(model, o.desired, null),
    schema: k.schema,
    live_fingerprint: fingerprinted(p),
    lookup: lookupOf(k, o.desired, o.source),
    // Read back by the id the create's answer will give: a reference to this very address, filled in by apply.
    read: readBackOf(k, { id: `\${${o.doc.address}.id}`, spec: o.desired }),
    expect: style.sets(w),
    notes: nonEmpty(notes),
  });
}

/** Managed fields the last apply set that the document no longer has: left as they are, managed no more. */
function unmanaged(c: Change, lastApplied?: Record<string, unknown>): string[] {
  const now = Object.keys(c.managed ?? {});
  const gone = Object.keys(lastApplied ?? {}).filter(
    (p) => !now.some((q) => q === p || q.startsWith(`${p}.`) || p.startsWith(`${q}.`)),
  );
  return gone.map((p) => `${p} is no longer managed: it stays as it is on the platform`);
}

export interface PlanContext {
  /** state entries no document declares (renames excluded): each is released */
  undeclared?: Undeclared[];
  /** the documents' dependency graph, when the caller has it already */
  graph?: Map<string, string[]>;
  /** the live resources of a kind that were listed while reading */
  liveListed?: (k: KindDef) => JsonObject[];
  /** the managed fields as the last apply left them (from the state) */
  lastApplied?: (address: string) => Record<string, unknown> | undefined;
  /** the id (a key kind's key) the state knows an address by */
  stateId?: (address: string) => string | undefined;
  /** changes made as their documents were read (planEarly), each with the observation it was made from */
  early?: Map<string, { o: Observed; change: Change | undefined }>;
}

/** A document's change as planOne makes it without a hand-over, or undefined where it cannot be made (planChanges
 *  makes it again, and throws in order). */
export function planEarly(registry: Registry, o: Observed, ctx: PlanContext): Change | undefined {
  try {
    return planOne(registry, ctx.graph!, o, ctx);
  } catch {
    return undefined;
  }
}

/** One document's change. */
function planOne(
  registry: Registry,
  graph: Map<string, string[]>,
  o: Observed,
  ctx: PlanContext,
  after: string[] = [],
): Change {
  // Only references to documents that are not known yet make a dependency the apply must wait for.
  const refs = graph.get(o.doc.address) ?? [];
  const text = refs.length ? JSON.stringify([o.desired, o.source ?? null]) : '';
  const deps = [...refs.filter((a) => text.includes(`\${${a}.id}`)), ...after];
  const last = ctx.lastApplied?.(o.moved_from ?? o.doc.address);
  const k = registry.get(o.doc.kind)!;
  // A key kind's key is its identity: another key is another resource, and the one the state knew is let go.
  const keyField = k.identity.by === 'key' ? k.identity.field : undefined;
  const was = keyField ? ctx.stateId?.(o.moved_from ?? o.doc.address) : undefined;
  const rekeyed =
    was && o.id && was !== o.id
      ? [`${keyField} changed from ${was}: the ${k.kind} there is released and stays as it is on the platform`]
      : [];
  const c = changeFor(k, o, deps, rekeyed.length ? undefined : last);
  // A write to another key is a write of another resource, and the one the state knew is let go: a replace.
  if (rekeyed.length && c.action === 'update') Object.assign(c, { action: 'replace', released_id: was });
  if (after.length) c.requires = after;
  const live = liveEventsOf(k, o, c.action);
  if (live) c.live_events = live;
  // What apply fills in holds the document's literals escaped, so that filling in never takes one for a reference.
  if (c.request && holdsEscapes(o.doc)) {
    c.request = { ...c.request, body: withEscapes(o.doc, c.request.body) };
    if (c.expect) c.expect = withEscapes(o.doc, c.expect);
    if (c.managed) c.managed = withEscapes(o.doc, c.managed);
    if (c.lookup) c.lookup = withEscapes(o.doc, c.lookup as unknown as Json) as unknown as Change['lookup'];
  }
  // Adopted rather than created: the reviewer should see which live resource the document takes over.
  const adopted = o.adopted_by && o.id ? [`adopted by natural key (${o.adopted_by.join(', ')}): ${o.id}`] : [];
  const notes = [
    ...(c.notes ?? []),
    ...(o.notes ?? []),
    ...adopted,
    ...rekeyed,
    ...(c.action === 'create' || c.action === 'replace'
      ? renameHint(c, ctx.undeclared ?? [])
      : unmanaged(c, rekeyed.length ? undefined : last)),
  ];
  if (notes.length) c.notes = notes;
  return c;
}

/**
 * The changes of `docs`, in apply order: by dependency wave, then kind level, then address; and their counts.
 * `observed` may hold more documents than are planned: a --refresh changed plan plans only those it read, and its
 * `refresh.not_read` stands for the others (as Terraform's plan leaves unchanged resources out).
 */
export function planChanges(
  docs: Document[],
  observed: Map<string, Observed>,
  registry: Registry,
  ctx: PlanContext = {},
): Pick<Plan, 'changes' | 'summary'> {
  const refGraph = ctx.graph ?? dependencyGraph(docs);
  const after = handovers(registry, observed.values());
  const graph = after.size ? new Map(refGraph) : refGraph;
  for (const [a, deps] of after) graph.set(a, [...(refGraph.get(a) ?? []), ...deps]);
  // By kind level, then address: the documents sorted by address, dealt out to their level in one pass.
  const level = new Map(registry.names().map((kind) => [kind, registry.level(kind)]));
  const byLevel = new Map<number, Document[]>();
  for (const d of byAddress(docs)) {
    const l = level.get(d.kind)!;
    if (!byLevel.has(l)) byLevel.set(l, []);
    byLevel.get(l)!.push(d);
  }
  const inWaves = waves(
    [...byLevel].sort(([a], [b]) => a - b).flatMap(([, ds]) => ds),
    (d) => d.address,
    (d) => graph.get(d.address) ?? [],
  );
  // (Arrays of every document are not copied where they need not be: at 100,000 each is almost 1 MB.)
  const ordered = inWaves.length === 1 ? inWaves[0] : inWaves.flat();
  const obs = ordered.map((d) => observed.get(d.address)!);
  checkUniqueLive(registry, obs, observed, ctx.liveListed ?? (() => []));
  const changes = obs.map((o) => {
    const handedOver = after.get(o.doc.address);
    const early = handedOver ? undefined : ctx.early?.get(o.doc.address);
    return early?.o === o && early.change && refGraph === ctx.graph
      ? early.change
      : planOne(registry, refGraph, o, ctx, handedOver);
  });
  for (const u of [...(ctx.undeclared ?? [])].sort((a, b) => naturalCompare(a.address, b.address)))
    changes.push(released(u));
  return { changes, summary: summaryOf(changes) };
}
