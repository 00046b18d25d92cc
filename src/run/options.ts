// Options travel as one typed object built here from flags, environment variables and the project file;
// nothing else reads flags or the environment. Precedence: flag > environment variable > project file > default.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FORMATS, renderers, type Format, type IssueFormat } from '../report/formats.js';
import { alreadyPrinted, Reported, TapedeckError, UserError } from '../errors.js';
import { withOverrides, type Registry } from '../kinds/registry.js';
import { configurationName, loadProject, type Environment, type Project } from '../project/project.js';
import { parseTargets } from './targets.js';
import type { Window } from '../windows/spec.js';
import { parseNow, parseOverrides, projectWindows } from './windows.js';
import { systemClock } from '../util/clock.js';
import type { Allowance, Clock, Io, SourceDoc, WindowOverride } from '../types.js';
import { budgetSettings, type BudgetFlags, type BudgetSettings, type Role } from '../budget/settings.js';
import type { StateLocation } from '../state/backend.js';
import { defaultState, stateLocation } from './state-location.js';
import {
  outputFormats,
  parseVars,
  positiveInt,
  wholeSeconds,
  readAllowances,
  readToken,
  readVarFile,
  refreshMode,
  type RefreshMode,
} from './flag-values.js';
import { namedTokenValues, tokenSource, type TokenRole } from './credentials.js';

export {
  MAX_TOKEN_FILE_BYTES,
  outputFormats,
  parseVars,
  positiveInt,
  REFRESH_MODES,
  wholeSeconds,
} from './flag-values.js';
export type { RefreshMode } from './flag-values.js';

export interface CommonFlags extends BudgetFlags {
  baseUrl?: string;
  tokenFile?: string;
  env?: string;
  state?: string;
  concurrency?: string;
  maxRps?: string;
  timeout?: string;
  retries?: string;
  retryDeadline?: string;
  deadline?: string;
  insecureHttp?: boolean;
  debug?: boolean;
  json?: boolean;
  format?: string;
  quiet?: boolean;
  var?: string[];
  varFile?: string[];
  recreateMissing?: boolean;
  /** plan/apply: only the documents these address patterns match, and what they reference */
  target?: string[];
  /** plan/apply: RULE=REASON, a guardrail's denial let through */
  allow?: string[];
  /** plan/apply: files of RULE=REASON lines (a reviewed list of allowances) */
  allowFile?: string[];
  /** plan/apply: read every document (full), or only those changed since the last apply */
  refresh?: string;
  /** plan/apply: NAME=REASON, a change window's hold lifted */
  overrideWindow?: string[];
  /** plan/apply: the time the windows and the rules' `now` are checked for (RFC 3339), instead of the clock */
  now?: string;
  /** apply: write nothing when a window holds any change (default: apply what no window holds) */
  allOrNothing?: boolean;
  /** the agent: the only environment variables documents may read (`${env.NAME}`); undefined (the CLI): any */
  documentEnv?: string[];
}

export interface RunOptions {
  /** plan a create for a resource the state knows but the platform does not (else that is an error) */
  recreateMissing: boolean;
  dir: string;
  /** the configuration's identity (tapedeck.yaml's name, or its default): its state records it */
  configuration: string;
  envName: string;
  baseUrl?: string;
  /** where the state is: a file, or a PostgreSQL database (one row per environment) */
  state: StateLocation;
  concurrency: number;
  /** at most this many request starts in any one second (--max-rps); none: as the platform allows */
  maxRps?: number;
  /** the fleet's budget (the environment's `budget:`, --budget-*), beneath which --max-rps caps this process */
  budget?: BudgetSettings;
  timeoutMs: number;
  maxAttempts: number;
  /** no retry starts after this long since the first attempt */
  deadlineMs: number;
  /** the whole run's deadline, on `runClock` (its ms()): no request starts after it */
  runDeadlineAt: number;
  /** the run's clock (Io.clock, else the system's), for the client's waits, pacing and deadlines */
  runClock: Clock;
  insecureHttp: boolean;
  debug: boolean;
  /** stdout: text for people, markdown for pull-request comments, json for scripts (--json is --format json) */
  format: Format;
  /** the issues found in the input: the same, or (validate) GitHub Actions annotations */
  issueFormat: IssueFormat;
  quiet: boolean;
  vars: Record<string, unknown>;
  /** --var-file paths (absolute): variables, never read as documents even when they are below DIR */
  varFiles: string[];
  /** the agent's --document-env: the only environment variables `${env.NAME}` reads; undefined (the CLI): any */
  documentEnv?: ReadonlySet<string>;
  /** --target patterns; empty: the whole configuration */
  targets: string[];
  /** --refresh: `changed` reads only the documents whose desired values differ from the state's record */
  refresh: RefreshMode;
  registry: Registry;
  project?: Project;
  /** the project file as parsed: where its rules stand */
  projectSource?: SourceDoc;
  /** --allow RULE=REASON and --allow-file's lines: denials let through, and why (only ever the command line's) */
  allow: Allowance[];
  /** tapedeck.yaml's change windows, compiled */
  windows: Window[];
  /** --override-window NAME=REASON: windows' holds lifted, and why */
  overrides: WindowOverride[];
  /** --now: the time windows and rules are checked for; absent: the clock, read when they are checked */
  now?: Date;
  /** --all-or-nothing: a window holding any change stops the whole apply */
  allOrNothing: boolean;
  /** the run's clock (Io's, else the system's), read when windows and rules are checked */
  clock: () => Date;
  /** read lazily: validate needs no token */
  token: () => string;
  /** where the token comes from, to name in a message (never its value) */
  tokenSource: string;
}

const isFile = (path: string) => {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false; // a missing DIR is reported with the documents (validate), or made (export)
  }
};

/** --env, else TAPEDECK_ENV; an empty variable (a CI variable left unset) is none, as an empty TAPEDECK_BASE_URL is. */
export const chosenEnvironment = (f: { env?: string }, io: Io): string | undefined =>
  f.env ?? (io.env.TAPEDECK_ENV || undefined);

/**
 * The environment the run is for. With environments in the project file it must be one of them: without --env
 * the name is `default`, and a project that does not define it would be run without its variables, base URL and
 * state file (a plan would then create everything again), so that is refused too, naming the choices.
 */
function environment(
  project: Project | undefined,
  file: string,
  f: CommonFlags,
  io: Io,
): { envName: string; env?: Environment } {
  const chosen = chosenEnvironment(f, io);
  const envName = chosen ?? 'default';
  if (!/^[A-Za-z0-9_-]+$/.test(envName))
    throw new UserError(`environment name ${JSON.stringify(envName)} may only hold letters, digits, - and _`);
  const envs = project?.environments ?? {};
  const known = Object.keys(envs);
  // Without environments in a project file, a name only chooses the state file.
  if (!known.length || Object.hasOwn(envs, envName)) return { envName, env: envs[envName] };
  if (chosen === undefined)
    throw new UserError(
      `an environment is needed: ${file} defines ${known.join(', ')}; choose one with --env NAME (or TAPEDECK_ENV)`,
    );
  throw new UserError(`unknown environment ${JSON.stringify(envName)} (the project file defines: ${known.join(', ')})`);
}

/** Runs rules without stopping at the first bad one: each UserError's line is kept, to report all together. */
export function collectProblems(): { problems: TapedeckError[]; check: <T>(rule: () => T) => T | undefined } {
  const problems: TapedeckError[] = [];
  const check = <T>(rule: () => T): T | undefined => {
    try {
      return rule();
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      problems.push(e);
      return undefined;
    }
  };
  return { problems, check };
}

/**
 * Every rule runs, and all their problems are reported together: the project file's located issues (in the
 * chosen issue format), then one line per other problem. The documents are not checked when any is found: their
 * variables and endpoints come from what failed here, so their errors would mislead.
 */
export function buildOptions(
  dirArg: string | undefined,
  f: CommonFlags,
  io: Io,
  {
    formats = FORMATS,
    readsState = true,
    role = 'plan',
    budgetRole = role,
  }: { formats?: readonly IssueFormat[]; readsState?: boolean; role?: TokenRole; budgetRole?: Role } = {},
): RunOptions {
  const dir = resolve(io.cwd, dirArg ?? '.');
  // Masked from the start, even by commands that never send it: a document or a message might echo it.
  io.secret?.(io.env.TAPEDECK_TOKEN?.trim() ?? '');
  io.secret?.(io.env.PGPASSWORD ?? '');
  const { problems, check } = collectProblems();
  const output = check(() => outputFormats(f, formats));
  const notDir = isFile(dir);
  if (notDir)
    problems.push(
      new UserError(
        `${dirArg} is not a directory: give the directory that holds the documents (every *.yaml/*.yml below it is read)`,
        { code: 'E_INPUT' },
      ),
    );
  const {
    project,
    source: projectSource,
    file,
    issues,
  } = notDir ? { project: undefined, file: '', issues: [] } : loadProject(dir, io.cwd);
  const chosen = issues.length ? undefined : check(() => environment(project, file, f, io));
  for (const t of namedTokenValues(project, io)) io.secret?.(t);
  const baseUrlGiven = f.baseUrl ?? io.env.TAPEDECK_BASE_URL;
  const token = chosen && check(() => tokenSource(f.tokenFile, chosen.envName, chosen.env, role, baseUrlGiven));
  const { registry, problems: endpoints } = withOverrides(project?.endpoints);
  if (endpoints.length)
    problems.push(new UserError(`tapedeck.yaml: endpoints: ${endpoints.join('; ')}`, { code: 'E_VALIDATION' }));
  const defaults = project?.defaults ?? {};
  const number = (name: string, raw: string | undefined, fallback: number, min = 1) =>
    check(() => positiveInt(name, raw, fallback, min)) ?? fallback;
  const concurrency = number('--concurrency', f.concurrency, defaults.concurrency ?? 8);
  const maxRps = f.maxRps === undefined ? defaults.max_rps : number('--max-rps', f.maxRps, 1);
  const seconds = (name: string, raw: string | undefined, fallback: number) =>
    check(() => wholeSeconds(name, raw, fallback)) ?? fallback;
  const timeout = seconds('--timeout', f.timeout, defaults.timeout ?? 30);
  const retries = number('--retries', f.retries, defaults.retries ?? 4, 0);
  const budget = chosen && check(() => budgetSettings(chosen.env?.budget, f, budgetRole));
  const retryDeadline = seconds('--retry-deadline', f.retryDeadline, defaults.retry_deadline ?? 120);
  const deadline = seconds('--deadline', f.deadline, 3600);
  const targets = check(() => parseTargets(f.target)) ?? [];
  const allow = check(() => readAllowances(f.allow, f.allowFile, io.cwd)) ?? [];
  const refresh = check(() => refreshMode(f.refresh)) ?? 'full';
  // Windows that cannot work are located errors of the project file, as its schema's are.
  const compiled = issues.length ? { windows: [], issues: [] } : projectWindows(project, projectSource, registry);
  issues.push(...compiled.issues.filter((i) => i.severity === 'error'));
  const overrides = check(() => parseOverrides(f.overrideWindow, compiled.windows)) ?? [];
  const now = check(() => parseNow(f.now));
  // validate reads no state: a state URL whose password is not in its environment (a pull request's job) is no problem.
  const state =
    chosen &&
    (readsState
      ? check(() => stateLocation(f, io, dir, chosen.envName, chosen.env))
      : defaultState(dir, chosen.envName));
  // Variables: the environment's vars, overridden by --var, overridden by --var-file (later sources win).
  const vars = { ...(chosen?.env?.vars ?? {}), ...check(() => parseVars(f.var)) };
  for (const varFile of f.varFile ?? [])
    Object.assign(
      vars,
      check(() => readVarFile(varFile, io.cwd)),
    );
  if (issues.length || problems.length || !output || !chosen || !state || !token) {
    // A machine format says the run failed, whatever failed: a JSON that said "valid" would be believed.
    const printed = renderers[output?.issueFormat ?? 'text'].issues({ issues, problems });
    io.out(printed.out);
    io.err(printed.err);
    // Said in the chosen format just now: the CLI's catch prints its line, and no machine output again.
    if (!issues.length && problems.length === 1) throw alreadyPrinted(problems[0]);
    for (const p of problems) io.err(`error: ${p.line()}\n`);
    throw new Reported();
  }
  const { envName, env } = chosen;
  return {
    recreateMissing: !!f.recreateMissing,
    dir,
    configuration: configurationName(dir, project),
    envName,
    baseUrl: baseUrlGiven ?? env?.base_url,
    state,
    concurrency,
    maxRps,
    ...(budget ? { budget } : {}),
    timeoutMs: timeout * 1000,
    maxAttempts: retries + 1,
    deadlineMs: retryDeadline * 1000,
    runDeadlineAt: (io.clock ?? systemClock).ms() + deadline * 1000,
    runClock: io.clock ?? systemClock,
    insecureHttp: !!f.insecureHttp,
    debug: !!f.debug,
    ...output,
    quiet: !!f.quiet,
    vars,
    varFiles: (f.varFile ?? []).map((v) => resolve(io.cwd, v)),
    documentEnv: f.documentEnv && new Set(f.documentEnv),
    targets,
    refresh,
    registry,
    project,
    projectSource,
    allow,
    windows: compiled.windows,
    overrides,
    ...(now ? { now } : {}),
    allOrNothing: !!f.allOrNothing,
    clock: () => (io.clock ?? systemClock).now(),
    token: () => readToken(token, io),
    tokenSource: token.shown,
  };
}
