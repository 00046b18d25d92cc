// The composition shared by validate, plan and apply: thin, each step one call.
import { resolve } from 'node:path';
import { errorLine, Reported, UserError } from '../errors.js';
import { loadDir } from '../load/load.js';
import { planChanges, PlanError, type Undeclared } from '../plan/build.js';
import { maskPlan } from '../plan/sensitive.js';
import { Client, checkBaseUrl, defaultClientOptions } from '../remote/client.js';
import { readLive } from '../remote/read-live.js';
import { planReads } from '../remote/read-plan.js';
import { interpolateSources } from '../resolve/interpolate.js';
import { checkReferences } from '../resolve/refs.js';
import { renderers } from '../report/formats.js';
import { progress, progressMode } from '../report/progress.js';
import { State } from '../state/state.js';
import { readState } from './state-access.js';
import { isObject } from '../schema/values.js';
import type { Document, Issue, Plan, SourceDoc } from '../types.js';
import { tapedeckVersion } from '../version.js';
import { validateDocuments } from '../validate/validate.js';
import type { Io } from './io.js';
import type { RunOptions } from './options.js';
import { platformProblem } from './reach.js';
import { planConfigurationHash, selectTargets, targeted } from './targets.js';

/**
 * Every document checked, nothing printed: files, variables, schemas, the rules across documents, references.
 * Each stage runs on what the one before let through, so one failing rule never hides another's errors.
 */
export function checkDocuments(opts: RunOptions, io: Io): { docs: Document[]; issues: Issue[]; found: number } {
  const loaded = loadDir(opts.dir, io.cwd);
  // A --var-file kept below DIR holds variables, not documents: it is read as variables only (options.ts).
  const varFile = (file: string) => opts.varFiles.includes(resolve(io.cwd, file));
  const sources = loaded.docs.filter((s) => !varFile(s.file));
  const issues = loaded.issues.filter((i) => !varFile(i.file));
  issues.push(...interpolateSources(sources, { vars: opts.vars, env: io.env, secret: io.secret }));
  const { docs, issues: more } = validateDocuments(sources, opts.registry);
  issues.push(...more, ...referenceIssues(docs, sources));
  return { docs, issues, found: sources.length };
}

/**
 * References among the documents that validated. One to a document that failed its own checks is not reported
 * again as undefined: that document's errors already say what is wrong.
 */
function referenceIssues(docs: Document[], sources: SourceDoc[]): Issue[] {
  const valid = new Set(docs.map((d) => d.address));
  const failed = sources.map((s) => (isObject(s.value) && typeof s.value.kind === 'string' && typeof s.value.name === 'string' ? `${s.value.kind}/${s.value.name}` : ''))
    .filter((a) => a && !valid.has(a));
  return checkReferences(docs).filter((i) => !failed.some((a) => i.message.startsWith(`\${${a}.id} refers to`)));
}

/**
 * The issues in the format asked for (machine formats on stdout), and on stderr how many errors stopped the run.
 * `documents` is validate's: it checked everything, and says how many documents it read.
 */
export function printIssues(opts: RunOptions, io: Io, issues: Issue[], documents?: number, format = opts.issueFormat): boolean {
  const printed = renderers[format].issues({ issues, documents });
  io.out(printed.out);
  io.err(printed.err);
  const n = issues.filter((i) => i.severity === 'error').length;
  if (n) io.err(`${n} error${n === 1 ? '' : 's'}; nothing was sent.\n`);
  return n > 0;
}

export const noDocuments = (opts: RunOptions) => new UserError(`no documents found in ${opts.dir} (every *.yaml/*.yml below it is read)`);

/** `allowNone`: a directory without documents is not an error (export writes into it). */
export function loadDocuments(opts: RunOptions, io: Io, { allowNone = false } = {}): Document[] {
  const { docs, issues, found } = checkDocuments(opts, io);
  // Warnings alone do not stop a plan: they go to stderr as text, since stdout carries the plan in its format.
  const failed = issues.some((i) => i.severity === 'error');
  printIssues(opts, io, issues, undefined, failed ? opts.issueFormat : 'text');
  if (failed) throw new Reported();
  if (!found && !allowNone) throw noDocuments(opts);
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
    maxRps: opts.maxRps,
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
  const docs = selectTargets(all, opts.targets, Object.keys(state.data.resources));
  const client = makeClient(opts, io);
  try {
    const reading = progress(io, progressMode(io, opts.quiet || opts.debug), 'reading', docs.length);
    const { observed, failures, liveListed, notRead } = await readLive(planReads(docs, registry, state), client, state, { concurrency: opts.concurrency, recreateMissing: opts.recreateMissing, onRead: reading.tick });
    reading.done();
    if (failures.length) {
      // A platform that cannot be used at all is one line, not one per document.
      const stop = failures.map((f) => platformProblem(f.error, client.opts.baseUrl, opts.tokenSource)).find(Boolean);
      if (stop) throw new UserError(stop);
      for (const f of failures) io.err(`${f.address}: ${errorLine(f.error)}\n`);
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
    return { plan, shown: maskPlan(plan), state, client, docs };
  } catch (e) {
    await client.close();
    if (e instanceof PlanError) throw new UserError(e.message);
    throw e;
  }
}
