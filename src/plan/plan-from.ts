// The one composition of a plan: documents, observations and the state -> the changes. Pure: no network, no
// clock, no files. `plan`, `apply`, `apply --plan`, the agent and the scenario tests all plan through it; reading
// (live/) makes the observations, and the run layer (run/pipeline.ts) keeps the I/O, the progress and the errors.
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import type { LiveProjection } from '../live/read-live.js';
import type { JsonObject } from '../schema/values.js';
import type { State } from '../state/state.js';
import type { Document, Observed, Plan } from '../types.js';
import { planChanges, planEarly, type PlanContext } from './build.js';
import { dependencyGraph } from '../resolve/refs.js';
import type { Undeclared } from './releases.js';
import { addDigests } from './summary.js';
import { keptForPlan } from './keep.js';

/** What was found of the documents planned: read from the platform, or taken as the state recorded them. */
export interface Observations {
  /** by address: each document read, with its desired values and its live resource (as `planProjection` kept it) */
  read: Map<string, Observed>;
  /** documents not read (`--refresh changed`) whose desired values were made: their live resource is taken to be
   *  what the state recorded (they are looked at by a default's hand-over, and planned only if `documents` holds them) */
  trusted?: Map<string, Observed>;
  /** the ids of documents neither read nor trusted (the state's, or a saved plan's): for the digests' references */
  knownId?: (address: string) => string | undefined;
  /** the live resources of a kind with a uniqueness rule that were listed while reading */
  liveListed?: (k: KindDef) => JsonObject[];
}

export interface PlanInput {
  /** the documents planned: one change each */
  documents: Document[];
  /** every document of the configuration (default: `documents`): a state entry none of them declares is released;
   *  `false`: none is looked for (`apply --plan` makes only the saved plan's writes again) */
  declared?: Document[] | false;
  observations: Observations;
  state: State;
  registry: Registry;
  /** the addresses a release may name (`--target`); default: every one */
  releasable?: (address: string) => boolean;
}

/**
 * The changes of a plan, in apply order, and their counts; each document's change with the document's digest (which
 * apply records). Throws a UserError (E_PLAN) for a plan that cannot be made.
 */
export function planFrom(input: PlanInput, early?: AsRead): Pick<Plan, 'changes' | 'summary'> {
  const { documents, observations, registry } = input;
  // The documents read first, then those taken from the state: the order handovers of a default look in.
  const observed = observations.trusted?.size ? new Map(observations.read) : observations.read;
  for (const [address, o] of observations.trusted ?? []) observed.set(address, o);
  const ctx = early?.ctx ?? contextOf(input);
  const planned = planChanges(documents, observed, registry, { ...ctx, liveListed: observations.liveListed });
  const { knownId } = observations;
  // A document read (or trusted) has the id found for it: none for one created (again, with --recreate-missing).
  addDigests(planned.changes, documents, (a) => (observed.has(a) ? observed.get(a)!.id : knownId?.(a)));
  return planned;
}

/** What every change is planned with but its observation: the releases, the reference graph, the state's view. */
function contextOf(input: Omit<PlanInput, 'observations'>): PlanContext {
  const { documents, state, releasable = () => true } = input;
  const releases =
    input.declared === false ? [] : undeclared(input.declared ?? documents, state).filter((u) => releasable(u.address));
  return {
    undeclared: releases,
    graph: dependencyGraph(documents),
    lastApplied: (a) => state.entry(a)?.fields,
    stateId: (a) => state.idOf(a),
  };
}

/** Changes planned as their documents are read (`observe`), for planFrom to take where nothing planned later
 *  changes them. */
export interface AsRead {
  ctx: PlanContext;
  observe(o: Observed): void;
}

/**
 * Planning while reading: each document's change is made as its read ends, while the other requests are on the
 * wire, instead of all of them after the last answer; planFrom takes a change made so (planChanges' `early`) unless
 * a default's hand-over makes it wait for another. A change that cannot be made is made again by planFrom, which
 * throws in the plan's own order.
 */
export function planAsRead(input: Omit<PlanInput, 'observations'>): AsRead {
  const ctx: PlanContext = { ...contextOf(input), early: new Map() };
  const planned = new Set(input.documents.map((d) => d.address));
  return {
    ctx,
    observe: (o) => {
      if (planned.has(o.doc.address)) ctx.early!.set(o.doc.address, { o, change: planEarly(input.registry, o, ctx) });
    },
  };
}

/**
 * What planFrom needs of each live resource read, declared for reading to apply as each document is read
 * (`keep` in readLive): the rest is let go at once. The managed fields as the last apply left them are the state's.
 */
export function planProjection(registry: Registry, state: State): LiveProjection {
  return (o) => keptForPlan(registry.get(o.doc.kind)!, o, state.entry(o.moved_from ?? o.doc.address)?.fields);
}

/** State entries no document declares: every address but those declared, and those a document moved from. */
function undeclared(docs: Document[], state: State): Undeclared[] {
  const declared = new Set<string>();
  for (const d of docs) {
    declared.add(d.address);
    if (d.moved_from && !state.entry(d.address)) declared.add(d.moved_from);
  }
  const out: Undeclared[] = [];
  for (const address in state.data.resources) {
    const e = state.data.resources[address];
    if (declared.has(address) || e.released_at) continue; // released once already: remembered, not released again
    out.push({ address, kind: e.kind, ...(e.id ? { id: e.id } : {}), ...(e.fields ? { fields: e.fields } : {}) });
  }
  return out;
}
