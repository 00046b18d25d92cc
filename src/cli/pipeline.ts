// The composition shared by validate, plan and apply: thin, each step one call.
import { Reported, UserError } from '../errors.js';
import { loadDir } from '../load/load.js';
import { planChanges, PlanError, type Undeclared } from '../plan/build.js';
import { configurationHash } from '../plan/fingerprint.js';
import { maskPlan } from '../plan/sensitive.js';
import { Client, checkBaseUrl, defaultClientOptions } from '../remote/client.js';
import { readLive } from '../remote/read-live.js';
import { planReads } from '../remote/read-plan.js';
import { interpolateSources } from '../resolve/interpolate.js';
import { checkReferences } from '../resolve/refs.js';
import { reportIssues } from '../report/text.js';
import { progress, progressMode } from '../report/progress.js';
import { State } from '../state/state.js';
import type { Document, Plan } from '../types.js';
import { tapedeckVersion } from '../version.js';
import { validateDocuments } from '../validate/validate.js';
import type { Io } from './io.js';
import type { RunOptions } from './options.js';

/** `allowNone`: a directory without documents is not an error (export writes into it). */
export function loadDocuments(opts: RunOptions, io: Io, { allowNone = false } = {}): Document[] {
  const registry = opts.registry;
  const { docs: sources, issues } = loadDir(opts.dir, io.cwd);
  issues.push(...interpolateSources(sources, { vars: opts.vars, env: io.env, secret: io.secret }));
  const { docs, issues: more } = validateDocuments(sources, registry);
  issues.push(...more);
  if (!issues.some((i) => i.severity === 'error')) issues.push(...checkReferences(docs));
  reportIssues(issues, (t) => io.err(t));
  if (issues.some((i) => i.severity === 'error')) {
    const n = issues.filter((i) => i.severity === 'error').length;
    io.err(`${n} error${n === 1 ? '' : 's'}; nothing was sent.\n`);
    throw new Reported();
  }
  if (!sources.length && !allowNone) throw new UserError(`no documents found in ${opts.dir} (every *.yaml/*.yml below it is read)`);
  return docs;
}

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
    timeoutMs: opts.timeoutMs,
    maxAttempts: opts.maxAttempts,
    deadlineMs: opts.deadlineMs,
    runDeadlineAt: opts.runDeadlineAt,
    debug: opts.debug ? (line) => io.err(`debug: ${line}\n`) : undefined,
  });
}

export interface Planned {
  docs: Document[];
  /** the plan to execute: it holds the values of sensitive fields */
  plan: Plan;
  /** the plan as it may be shown or saved: sensitive values masked (the checksum is added where it is written) */
  shown: Plan;
  state: State;
  client: Client;
}

/** State entries no document declares: every address but those declared, and those a document moved from. */
function undeclared(docs: Document[], state: State): Undeclared[] {
  const declared = new Set(docs.flatMap((d) => [d.address, ...(d.moved_from && !state.entry(d.address) ? [d.moved_from] : [])]));
  return Object.entries(state.data.resources).filter(([a]) => !declared.has(a))
    .map(([address, e]) => ({ address, kind: e.kind, ...(e.id ? { id: e.id } : {}), ...(e.fields ? { fields: e.fields } : {}) }));
}

/** Load, read, plan: the plan as a closed value, with what it was made from and its checksum. */
export async function makePlan(opts: RunOptions, io: Io, loaded?: { docs: Document[]; state: State }): Promise<Planned> {
  const registry = opts.registry;
  const docs = loaded?.docs ?? loadDocuments(opts, io);
  const state = loaded?.state ?? State.load(opts.statePath);
  state.bindTo({ origin: baseUrl(opts).origin, environment: opts.envName });
  const client = makeClient(opts, io);
  try {
    const reading = progress(io, progressMode(io, opts.quiet || opts.debug), 'reading', docs.length);
    const { observed, failures, liveListed, notRead } = await readLive(planReads(docs, registry, state), client, state, { concurrency: opts.concurrency, recreateMissing: opts.recreateMissing, onRead: reading.tick });
    reading.done();
    if (failures.length) {
      for (const f of failures) io.err(`${f.address}: ${'line' in f.error ? (f.error as { line(): string }).line() : f.error.message}\n`);
      if (notRead) io.err(`${notRead} more document${notRead === 1 ? ' was' : 's were'} not read: the platform cannot be used as it is (see above)\n`);
      throw new Reported();
    }
    const { changes, summary } = planChanges(docs, observed, registry, { liveListed, lastApplied: (a) => state.entry(a)?.fields, stateId: (a) => state.idOf(a), undeclared: undeclared(docs, state) });
    const plan: Plan = {
      format_version: 1,
      tapedeck_version: tapedeckVersion(),
      environment: { name: opts.envName, base_url: client.opts.baseUrl },
      state: state.ref(),
      configuration_hash: configurationHash(docs),
      changes,
      summary,
      requests: { reads: client.counts.reads },
    };
    return { plan, shown: maskPlan(plan), state, client, docs };
  } catch (e) {
    await client.close();
    if (e instanceof PlanError) throw new UserError(e.message);
    throw e;
  }
}
