// The commands' side of every plan (after check.ts): the client, reading with its progress and errors, the plan's
// header, guardrails; the plan itself is planFrom's (plan/plan-from.ts). Thin, each step one call.
import { applyPlan, type ApplyOptions } from '../apply/apply.js';
import { errorCode, errorLine, Reported, TapedeckError, UserError } from '../errors.js';
import { planAsRead, planFrom, planProjection, type PlanInput } from '../plan/plan-from.js';
import { otherStates } from './other-states.js';
import { managedByPlan, refuseForeignOwners } from './owners.js';
import { maskPlan } from '../plan/sensitive.js';
import { Client, checkBaseUrl, defaultClientOptions, type Caller, type ClientOptions } from '../remote/client.js';
import { readLive } from '../live/read-live.js';
import { planReads } from '../live/read-plan.js';
import { changedSinceApply } from '../live/refresh.js';
import { progress, progressMode } from '../report/progress.js';
import { State } from '../state/state.js';
import { readState } from './state-access.js';
import type { Allowance, ApplyResult, Document, Locate, Observed, Plan } from '../types.js';
import { tapedeckVersion } from '../version.js';
import { loadConfiguration, type Configuration } from './check.js';
import { documentLocator, guardPlan, refuseDenied } from './guardrails.js';
import { heldError, windowCheck, windowPlan, withHeld, withoutHeld } from './window-check.js';
import { collectPhaseGarbage } from './engine.js';
import type { Io } from '../types.js';
import type { ApplyInputs, PlanInputs, PlatformInputs } from './inputs.js';
import type { RunOptions } from './options.js';
import type { StatesInSight } from './other-states.js';

/** What reads the documents: the run's client, or (the scenario tests) the emulator's answers in-process. */
export type Reader = Caller & { readonly opts: Pick<ClientOptions, 'baseUrl'> };

/** What reading the documents reads: the kinds, the progress shown, the lanes, and a missing resource's fate. */
type ReadInputs = Pick<RunOptions, 'registry' | 'quiet' | 'debug' | 'concurrency' | 'recreateMissing' | 'tokenSource'> &
  StatesInSight;
import { platformProblem } from './reach.js';
import { budgetGate } from '../budget/open.js';
import { budgetPlace } from './budget-place.js';
import { planConfigurationHash, selectTargets, targeted } from './targets.js';

/** The platform's base URL, checked (https unless loopback or --insecure-http; no credentials in it). */
export function baseUrl(opts: Pick<RunOptions, 'baseUrl' | 'insecureHttp'>, warn: (m: string) => void = () => {}): URL {
  if (!opts.baseUrl)
    throw new UserError('no base URL: pass --base-url, set TAPEDECK_BASE_URL, or choose an environment with --env');
  return checkBaseUrl(opts.baseUrl, opts.insecureHttp, warn);
}

export function makeClient(opts: PlatformInputs, io: Io): Client {
  const url = baseUrl(opts, (m) => io.err(`${m}\n`));
  const debug = opts.debug ? (line: string) => io.err(`debug: ${line}\n`) : undefined;
  const budget =
    opts.budget &&
    budgetGate(opts.budget, budgetPlace(opts, url, io), opts.runClock, (line) => io.err(`${line}\n`), debug);
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
    clock: opts.runClock,
    debug,
    ...(budget ? { budget } : {}),
  });
}

/** What a plan was made with; not the documents: apply writes without them (they are a large part of memory). */
export interface Planned {
  /** the plan to execute: it holds the values of sensitive fields */
  plan: Plan;
  /** the plan as it may be shown or saved: sensitive values masked (the checksum is added where it is written) */
  shown: Plan;
  state: State;
  client: Client;
  /** where each change's document is, for the verdicts' annotations */
  locate: Locate;
  /** the windows' verdict was made just now, with no question asked since: applyPlanned need not read again */
  windowsFresh?: boolean;
}

/** What reading found for the documents read, or the run stops (one line for a platform that cannot be used). */
async function readDocuments(
  docs: Document[],
  state: State,
  client: Reader,
  opts: ReadInputs,
  io: Io,
  knownId?: (a: string) => string | undefined,
  onObserved?: (o: Observed) => void,
) {
  const registry = opts.registry;
  const reading = progress(io, progressMode(io, opts.quiet || opts.debug), 'reading', docs.length);
  const { observed, failures, liveListed, notRead } = await readLive(planReads(docs, registry, state), client, state, {
    concurrency: opts.concurrency,
    recreateMissing: opts.recreateMissing,
    knownId,
    keep: planProjection(registry, state),
    onRead: () => reading.tick(),
    onObserved,
  });
  reading.done();
  collectPhaseGarbage();
  if (failures.length) {
    // A platform that cannot be used at all is one line, not one per document.
    for (const f of failures) {
      const stop = platformProblem(f.error, client.opts.baseUrl, opts.tokenSource);
      if (stop) throw new UserError(stop, { code: errorCode(f.error) });
    }
    // A problem located in a document starts with its file:line:col (and names the address itself).
    const errors = failures.map((f) =>
      f.error instanceof TapedeckError && f.error.where
        ? f.error
        : new TapedeckError(`${f.address}: ${errorLine(f.error)}`, { code: errorCode(f.error) }),
    );
    for (const e of errors) io.err(`${e.line()}\n`);
    if (notRead)
      io.err(
        `${notRead} more document${notRead === 1 ? ' was' : 's were'} not read: the platform cannot be used as it is (see above)\n`,
      );
    throw new Reported(withNewStateHint(errors, state, opts, io));
  }
  return { observed, liveListed };
}

/**
 * Resources found live before creating, against a state that records none: most likely they are recorded in
 * another state (another environment's, a file before `state push`). Said once on stderr, and as each duplicate's
 * hint in the machine output, naming the states in sight.
 */
function withNewStateHint(errors: TapedeckError[], state: State, opts: StatesInSight, io: Io): TapedeckError[] {
  if (Object.keys(state.data.resources).length || !errors.some((e) => e.code === 'E_DUPLICATE')) return errors;
  const others = otherStates(opts, io);
  const hint = others.length
    ? `this state is new (it records no resource), and another state of this configuration records resources: ${others.join(', ')}. If it records these, use it (--env, --state) or move it here with tapedeck state migrate FROM; tapedeck import adopts one resource at a time.`
    : 'this state is new (it records no resource) and no other state of this configuration is in sight: if another state records these resources, use it (--env, --state) or move it here with tapedeck state migrate FROM; tapedeck import adopts one resource at a time.';
  io.err(`note: ${hint}\n`);
  return errors.map((e) =>
    e.code === 'E_DUPLICATE' ? new TapedeckError(e.message, { code: e.code, where: e.where, hint }) : e,
  );
}

/** What a plan reads and plans: `read` is read, `planned` gets a change each (`trusted` are taken as observed,
 *  `knownId` gives the ids of documents not read), `all` are the documents (for releases; none are planned
 *  without them: `apply --plan` makes only the saved plan's writes again). */
export interface Reading {
  read: Document[];
  planned: Document[];
  all?: Document[];
  state: State;
  trusted?: Map<string, Observed>;
  knownId?: (address: string) => string | undefined;
}

/** Reads the documents to read and plans the planned ones (planFrom). */
export async function readAndPlan(
  r: Reading,
  client: Reader,
  opts: ReadInputs & Pick<RunOptions, 'targets'>,
  io: Io,
): Promise<Pick<Plan, 'changes' | 'summary'>> {
  const { state } = r;
  const { knownId } = r;
  const input: Omit<PlanInput, 'observations'> = {
    documents: r.planned,
    declared: r.all ?? false,
    state,
    registry: opts.registry,
    releasable: targeted(opts.targets),
  };
  // Each change is planned as its document's read ends, while the other requests are on the wire.
  const early = planAsRead(input);
  const { observed, liveListed } = await readDocuments(r.read, state, client, opts, io, knownId, early.observe);
  return planFrom({ ...input, observations: { read: observed, trusted: r.trusted, knownId, liveListed } }, early);
}

/**
 * Load, read, plan, check the guardrails: the plan as a closed value, with what it was made from. `loaded` gives
 * what the caller read already, or how to read the state (apply reads it under its lock); else the state is read as
 * it is. `allow`: the allowances for the rules (default: --allow). With `--refresh changed` only the documents
 * changed since the last apply are read (live/refresh.ts).
 */
export async function makePlan(
  opts: PlanInputs,
  io: Io,
  loaded: { config?: Configuration; state?: State | (() => Promise<State>); allow?: Allowance[] } = {},
): Promise<Planned> {
  const config = loaded.config ?? (await loadConfiguration(opts, io));
  const { docs: all, left } = config;
  const state = loaded.state instanceof State ? loaded.state : await (loaded.state ?? (() => readState(opts, io)))();
  const adopted = state.bindTo({ origin: baseUrl(opts).origin, environment: opts.envName }, opts.configuration);
  if (adopted) io.err(`note: ${adopted}\n`);
  // --target: only what the targets name and what that references is read and planned; every document was checked.
  const docs = selectTargets(all, opts.targets, () => state.managedAddresses(), opts.registry);
  const { read, trusted, known } =
    opts.refresh === 'changed'
      ? changedSinceApply(docs, opts.registry, state, { recreateMissing: opts.recreateMissing })
      : { read: docs, trusted: undefined, known: undefined };
  const client = makeClient(opts, io);
  try {
    // The documents taken from the state get no change each: `refresh.not_read` stands for them.
    const { changes, summary } = await readAndPlan(
      { read, planned: read, all, state, trusted, knownId: known && ((a) => known.get(a)) },
      client,
      opts,
      io,
    );
    const plan: Plan = {
      format_version: 1,
      tapedeck_version: tapedeckVersion(),
      environment: { name: opts.envName, base_url: client.opts.baseUrl },
      state: state.ref(),
      // A new state and creates: every one of them may be a duplicate of a resource another state records.
      ...(summary.create && !Object.keys(state.data.resources).length
        ? { new_state: { others: otherStates(opts, io) } }
        : {}),
      configuration_hash: planConfigurationHash(docs, opts.targets),
      ...(opts.targets.length ? { targets: opts.targets } : {}),
      ...(known ? { refresh: { mode: 'changed' as const, not_read: known.size } } : {}),
      ...(left ? { not_in_environment: left } : {}),
      changes,
      summary,
      requests: { reads: client.counts.reads },
      ...(client.budgetReport() ? { budget: client.budgetReport() } : {}),
    };
    const planned: Planned = { plan, shown: maskPlan(plan), state, client, locate: documentLocator(config.docs) };
    await guardPlan(planned, config, opts, state, loaded.allow ?? opts.allow);
    await windowPlan(planned, windowCheck(opts), client, opts.registry);
    planned.windowsFresh = true;
    return planned;
  } catch (e) {
    await client.close();
    throw e;
  }
}

/**
 * The write of a plan made by makePlan, for `apply` and the agent alike: the state records who wrote it, and the
 * plan's changes are applied (creates exactly once, the state saved after each). `command` names the writer in the
 * database state's history.
 */
export async function applyPlanned(
  planned: Planned,
  opts: ApplyInputs,
  command: string,
  extra: Omit<ApplyOptions, 'concurrency'> = {},
): Promise<ApplyResult> {
  const { plan, state, client } = planned;
  // A guardrail's denial that no --allow covers: nothing is written, whoever applies (the apply command says so
  // before it asks; the agent reports it).
  refuseDenied(plan);
  // An id another configuration or environment manages: refused before anything is sent.
  await refuseForeignOwners(managedByPlan(plan), state, opts);
  // The windows as they are when it writes: read again unless the verdict was made just now (a question answered
  // late, or a plan kept a while, is checked again).
  if (!planned.windowsFresh) await windowPlan(planned, windowCheck(opts), client, opts.registry);
  const { plan: writable, held } = withoutHeld(plan);
  if (held.length && opts.allOrNothing) throw heldError(plan, held);
  const allowances = plan.rules?.allowances.length ? plan.rules.allowances : undefined;
  const overrides = plan.windows?.overrides.length ? plan.windows.overrides : undefined;
  state.writtenBy({ command, configurationHash: plan.configuration_hash, allowances, overrides });
  const applied = await applyPlan(writable, client, state, { concurrency: opts.concurrency, ...extra });
  const result = held.length ? withHeld(applied, plan, held) : applied;
  const budget = client.budgetReport();
  return {
    ...result,
    ...(allowances ? { allowances } : {}),
    ...(overrides ? { overrides } : {}),
    ...(budget ? { budget } : {}),
  };
}
