// The composition shared by plan and apply (after check.ts): the client, reading, planning; thin, each step one call.
import { errorLine, Reported, UserError } from '../errors.js';
import { planChanges, PlanError, type Undeclared } from '../plan/build.js';
import { keepForPlan } from '../plan/keep.js';
import { maskPlan } from '../plan/sensitive.js';
import { Client, checkBaseUrl, defaultClientOptions } from '../remote/client.js';
import { readLive } from '../remote/read-live.js';
import { planReads } from '../remote/read-plan.js';
import { progress, progressMode } from '../report/progress.js';
import { State } from '../state/state.js';
import { readState } from './state-access.js';
import type { Document, Plan } from '../types.js';
import { tapedeckVersion } from '../version.js';
import { loadDocuments } from './check.js';
import { collectPhaseGarbage } from './engine.js';
import type { Io } from './io.js';
import type { RunOptions } from './options.js';
import { platformProblem } from './reach.js';
import { planConfigurationHash, selectTargets, targeted } from './targets.js';

/** The platform's base URL, checked (https unless loopback or --insecure-http; no credentials in it). */
export function baseUrl(opts: RunOptions, warn: (m: string) => void = () => {}): URL {
  if (!opts.baseUrl) throw new UserError('no base URL: pass --base-url, set TAPEDECK_BASE_URL, or choose an environment with --env');
  return checkBaseUrl(opts.baseUrl, opts.insecureHttp, warn);
}

export function makeClient(opts: RunOptions, io: Io): Client {
  const url = baseUrl(opts, (m) => io.err(`${m}\n`));
  return new Client({
    ...defaultClientOptions,
    baseUrl: url.href,
    token: opts.token(),
    concurrency: opts.concurrency,
    maxRps: opts.maxRps,
    timeoutMs: opts.timeoutMs,
    maxAttempts: opts.maxAttempts,
    deadlineMs: opts.deadlineMs,
    runDeadlineAt: opts.runDeadlineAt,
    debug: opts.debug ? (line) => io.err(`debug: ${line}\n`) : undefined,
  });
}

/** What a plan was made with; not the documents: apply writes without them (at 100,000 they are some 40 MB). */
export interface Planned {
  /** the plan to execute: it holds the values of sensitive fields */
  plan: Plan;
  /** the plan as it may be shown or saved: sensitive values masked (the checksum is added where it is written) */
  shown: Plan;
  state: State;
  client: Client;
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
    if (declared.has(address)) continue;
    const e = state.data.resources[address];
    if (e.released_at) continue; // released once already: remembered, not released again
    out.push({ address, kind: e.kind, ...(e.id ? { id: e.id } : {}), ...(e.fields ? { fields: e.fields } : {}) });
  }
  return out;
}

/**
 * Load, read, plan: the plan as a closed value, with what it was made from and its checksum. `loaded` gives what
 * the caller read already, or how to read the state (apply reads it under its lock); else the state is read as it is.
 */
export async function makePlan(opts: RunOptions, io: Io, loaded: { docs?: Document[]; state?: State | (() => Promise<State>) } = {}): Promise<Planned> {
  const registry = opts.registry;
  const all = loaded.docs ?? loadDocuments(opts, io);
  const state = loaded.state instanceof State ? loaded.state : await (loaded.state ?? (() => readState(opts, io)))();
  state.bindTo({ origin: baseUrl(opts).origin, environment: opts.envName });
  // --target: only what the targets name and what that references is read and planned; every document was checked.
  const docs = selectTargets(all, opts.targets, state.managedAddresses());
  const client = makeClient(opts, io);
  try {
    const reading = progress(io, progressMode(io, opts.quiet || opts.debug), 'reading', docs.length);
    const { observed, failures, liveListed, notRead } = await readLive(planReads(docs, registry, state), client, state, { concurrency: opts.concurrency, recreateMissing: opts.recreateMissing, onRead: (o) => {
      if (o) keepForPlan(registry.get(o.doc.kind)!, o, state.entry(o.moved_from ?? o.doc.address)?.fields);
      reading.tick();
    } });
    reading.done();
    collectPhaseGarbage();
    if (failures.length) {
      // A platform that cannot be used at all is one line, not one per document.
      const stop = failures.map((f) => platformProblem(f.error, client.opts.baseUrl, opts.tokenSource)).find(Boolean);
      if (stop) throw new UserError(stop);
      // A problem located in a document starts with its file:line:col (and names the address itself).
      for (const f of failures) io.err(`${f.error instanceof UserError && f.error.where ? '' : `${f.address}: `}${errorLine(f.error)}\n`);
      if (notRead) io.err(`${notRead} more document${notRead === 1 ? ' was' : 's were'} not read: the platform cannot be used as it is (see above)\n`);
      throw new Reported();
    }
    const inTargets = targeted(opts.targets);
    const releases = undeclared(all, state).filter((u) => inTargets(u.address));
    const { changes, summary } = planChanges(docs, observed, registry, { liveListed, lastApplied: (a) => state.entry(a)?.fields, stateId: (a) => state.idOf(a), undeclared: releases });
    const plan: Plan = {
      format_version: 1,
      tapedeck_version: tapedeckVersion(),
      environment: { name: opts.envName, base_url: client.opts.baseUrl },
      state: state.ref(),
      configuration_hash: planConfigurationHash(docs, opts.targets),
      ...(opts.targets.length ? { targets: opts.targets } : {}),
      changes,
      summary,
      requests: { reads: client.counts.reads },
    };
    return { plan, shown: maskPlan(plan), state, client };
  } catch (e) {
    await client.close();
    if (e instanceof PlanError) throw new UserError(e.message);
    throw e;
  }
}
