// apply --plan: the saved plan as reviewed, made ready to execute. Only the resources it writes are read again
// (with what their writes need to read: a create's lists, a duplicate's source); each write is made again from the
// documents (values from the environment taken again by name) and what was read now, and must equal the saved one
// once masked. Its changes that write only the state are made again too, without reading where the state recorded
// what their documents say (live/refresh.ts); nothing else is read or planned.
import { maskChange } from '../plan/sensitive.js';
import { changeDifferences, mismatches } from '../plan/saved.js';
import { changedSinceApply } from '../live/refresh.js';
import type { StateBackend } from '../state/backend.js';
import { State } from '../state/state.js';
import type { Change, Document, Plan } from '../types.js';
import { savedAllowanceNotes } from '../rules/allow.js';
import { loadConfiguration } from './check.js';
import { documentLocator, guardPlan } from './guardrails.js';
import type { Io } from '../types.js';
import type { PlanInputs } from './inputs.js';
import { baseUrl, makeClient, readAndPlan, type Planned, type Reading } from './pipeline.js';
import { planConfigurationHash, selectTargets } from './targets.js';
import { windowCheck, windowPlan } from './window-check.js';

/**
 * The saved plan ready to execute, or why it is stale (nothing written). What it was made from (environment,
 * configuration, state serial) is checked before anything is read: another environment's URL may not even answer.
 * The documents are loaded in here so that they are not held while the plan is applied.
 */
export async function remakeSaved(
  saved: Plan,
  backend: StateBackend,
  opts: PlanInputs,
  io: Io,
): Promise<Planned | { stale: string[] }> {
  const config = await loadConfiguration(opts, io);
  const { docs } = config;
  const state = await State.open(backend);
  const url = baseUrl(opts);
  const selected = selectTargets(docs, opts.targets, () => state.managedAddresses(), opts.registry);
  const before = mismatches(saved, {
    environment: { name: opts.envName, base_url: url.href },
    configuration_hash: planConfigurationHash(selected, opts.targets),
    state: state.ref(),
  });
  if (before.length) return { stale: before };
  state.bindTo({ origin: url.origin, environment: opts.envName }, opts.configuration);
  const reading = savedReading(saved, selected, docs, state, opts);
  const changed = new Set(saved.changes.map((c) => c.address));
  const client = makeClient(opts, io);
  try {
    const { changes } = await readAndPlan(reading, client, opts, io);
    const fresh = new Map(changes.filter((c) => changed.has(c.address)).map((c) => [c.address, c]));
    const masked = [...fresh.values()].map(maskChange);
    const stale = changeDifferences(saved, { ...saved, changes: masked });
    if (stale.length) {
      await client.close();
      return { stale };
    }
    const { plan, shown } = remadePlans(saved, fresh, masked, client.counts.reads);
    for (const note of savedAllowanceNotes(saved.rules?.allowances ?? [], opts.allow)) io.err(`note: ${note}\n`);
    const planned: Planned = { plan, shown, state, client, locate: documentLocator(docs) };
    await guardPlan(planned, config, opts, state, opts.allow);
    // The windows as they are now: the saved plan's verdict is when it was made.
    await windowPlan(planned, windowCheck(opts), client, opts.registry);
    planned.windowsFresh = true;
    return planned;
  } catch (e) {
    await client.close();
    throw e;
  }
}

/**
 * What a saved plan reads and plans again: the documents it writes and those whose changes send nothing but write
 * the state all the same (an id, fields, a digest, a move, a release): each is made again too, from the state where
 * its document is what the state recorded (live/refresh.ts), else read again as a write is; so an edited one
 * (another id, other fields) is refused as an edited write is. References take the ids of the documents taken from
 * the state, and of those a --refresh changed plan did not read. The entries no document declares are looked at
 * only where a create's likely rename is noted on it, or a release made again.
 */
function savedReading(saved: Plan, selected: Document[], docs: Document[], state: State, opts: PlanInputs): Reading {
  const written = new Set(saved.changes.filter((c) => c.request).map((c) => c.address));
  const changed = new Set(saved.changes.map((c) => c.address));
  const stateOnly = new Set(saved.changes.filter((c) => !c.request && c.action !== 'release').map((c) => c.address));
  const { trusted, known } = stateOnly.size
    ? changedSinceApply(selected, opts.registry, state, {
        observe: (a) => stateOnly.has(a),
        recreateMissing: opts.recreateMissing,
      })
    : { trusted: undefined, known: undefined };
  const declared = saved.changes.some((c) => c.action === 'create' || c.action === 'replace' || c.action === 'release');
  return {
    read: selected.filter((d) => written.has(d.address) || (changed.has(d.address) && !trusted?.has(d.address))),
    planned: selected.filter((d) => changed.has(d.address)),
    all: declared ? docs : undefined,
    state,
    trusted,
    knownId: (a) => known?.get(a) ?? state.idOf(a),
  };
}

/**
 * The plan to execute: the writes as made now, which hold the values of sensitive fields (the saved plan shows what
 * was reviewed); and the plan shown to the rules, the writes as made now masked (what the saved plan shows, change
 * for change). Allowances are this apply's own: what the saved plan records is shown, never taken (anyone can edit
 * the file and make its checksum again).
 */
function remadePlans(saved: Plan, fresh: Map<string, Change>, masked: Change[], reads: number) {
  const plan: Plan = { ...saved, changes: saved.changes.map((c) => fresh.get(c.address) ?? c), requests: { reads } };
  const remade = new Map(masked.map((c) => [c.address, c]));
  const shown: Plan = { ...saved, changes: saved.changes.map((c) => remade.get(c.address)!) };
  return { plan, shown };
}
