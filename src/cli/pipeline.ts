// The composition shared by validate, plan and apply: thin, each step one call.
import { Reported, UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import { loadDir } from '../load/load.js';
import { buildPlan, planOne, PlanError } from '../plan/build.js';
import { configurationHash, configurationPart } from '../plan/fingerprint.js';
import { Client, checkBaseUrl, defaultClientOptions } from '../remote/client.js';
import { readLive } from '../remote/read-live.js';
import { interpolateSources } from '../resolve/interpolate.js';
import { checkReferences, dependencyGraph } from '../resolve/refs.js';
import { reportIssues } from '../report/text.js';
import { progress, progressMode } from '../report/progress.js';
import { State } from '../state/state.js';
import type { Change, Document, Plan } from '../types.js';
import { validateDocuments } from '../validate/validate.js';
import type { Io } from './io.js';
import type { RunOptions } from './options.js';

export function loadDocuments(opts: RunOptions, io: Io): Document[] {
  const registry = opts.registry;
  const { docs: sources, issues } = loadDir(opts.dir, io.cwd);
  issues.push(...interpolateSources(sources, { vars: opts.vars, env: io.env }));
  const { docs, issues: more } = validateDocuments(sources, registry);
  issues.push(...more);
  if (!issues.some((i) => i.severity === 'error')) issues.push(...checkReferences(docs));
  reportIssues(issues, (t) => io.err(t));
  if (issues.some((i) => i.severity === 'error')) {
    const n = issues.filter((i) => i.severity === 'error').length;
    io.err(`${n} error${n === 1 ? '' : 's'}; nothing was sent.\n`);
    throw new Reported();
  }
  if (!sources.length) throw new UserError(`no documents found in ${opts.dir} (every *.yaml/*.yml below it is read)`);
  return docs;
}

export function makeClient(opts: RunOptions, io: Io): Client {
  if (!opts.baseUrl) throw new UserError('no base URL: pass --base-url, set TAPEDECK_BASE_URL, or choose an environment with --env');
  const url = checkBaseUrl(opts.baseUrl, opts.insecureHttp, (m) => io.err(`${m}\n`));
  return new Client({
    ...defaultClientOptions,
    baseUrl: url.href,
    token: opts.token(),
    concurrency: opts.concurrency,
    timeoutMs: opts.timeoutMs,
    maxAttempts: opts.maxAttempts,
    deadlineMs: opts.deadlineMs,
    debug: opts.debug ? (line) => io.err(`debug: ${line}\n`) : undefined,
  });
}

export interface Planned {
  docs: Document[];
  plan: Plan;
  state: State;
  client: Client;
  registry: Registry;
}

export async function makePlan(opts: RunOptions, io: Io): Promise<Planned> {
  const registry = opts.registry;
  const docs = loadDocuments(opts, io);
  const state = State.load(opts.statePath);
  const client = makeClient(opts, io);
  try {
    const reading = progress(io, progressMode(io, opts.quiet || opts.debug), 'reading', docs.length);
    const ctx = { lastApplied: (a: string) => state.entry(a)?.fields };
    const graph = dependencyGraph(docs);
    const early = new Map<string, Change>();
    const parts = new Map<string, string>();
    const { observed, failures, liveListed, notRead } = await readLive(docs, registry, client, state, opts.concurrency, (o) => {
      reading.tick();
      parts.set(o.doc.address, configurationPart(o.doc));
      // Diff each resource as it arrives, while the others are still on the wire (any error is raised by buildPlan).
      try {
        early.set(o.doc.address, planOne(registry, graph, o, ctx));
      } catch {
        /* buildPlan computes it again and reports the problem */
      }
    });
    reading.done();
    if (failures.length) {
      for (const f of failures) io.err(`${f.address}: ${'line' in f.error ? (f.error as { line(): string }).line() : f.error.message}\n`);
      if (notRead) io.err(`${notRead} more document${notRead === 1 ? ' was' : 's were'} not read: the platform cannot be used as it is (see above)\n`);
      throw new Reported();
    }
    const plan = buildPlan(docs, observed, registry, { ...ctx, liveListed, graph }, early);
    plan.configuration_hash = configurationHash(docs, parts);
    plan.environment = { name: opts.envName, base_url: client.opts.baseUrl };
    plan.requests = { reads: client.counts.reads };
    return { plan, state, client, registry, docs };
  } catch (e) {
    await client.close();
    if (e instanceof PlanError) throw new UserError(e.message);
    throw e;
  }
}
