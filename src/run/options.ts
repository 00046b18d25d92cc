// Options travel as one typed object built here from flags, environment variables and the project file;
// nothing else reads flags or the environment. Precedence: flag > environment variable > project file > default.
import { resolve } from 'node:path';
import { FORMATS, type Format, type IssueFormat } from '../report/formats.js';
import type { Registry } from '../kinds/registry.js';
import { configurationName, type Project } from '../project/project.js';
import type { Window } from '../windows/spec.js';
import { systemClock } from '../util/clock.js';
import type { Allowance, Clock, Io, SourceDoc, WindowOverride } from '../types.js';
import { budgetSettings, type BudgetSettings, type Role } from '../budget/settings.js';
import type { StateLocation } from '../state/backend.js';
import { defaultState, stateLocation } from './state-location.js';
import { outputFormats, readToken, type RefreshMode } from './flag-values.js';
import { namedTokenValues, tokenSource, type TokenRole } from './credentials.js';
import { collectProblems, environment } from './environment.js';
import type { CommonFlags } from './flags.js';
import { limitsOf, projectIn, registryOf, reportProblems, selections, switches, variables } from './option-steps.js';

export { chosenEnvironment, collectProblems } from './environment.js';

export {
  MAX_TOKEN_FILE_BYTES,
  outputFormats,
  parseVars,
  positiveInt,
  REFRESH_MODES,
  wholeSeconds,
} from './flag-values.js';
export type { RefreshMode } from './flag-values.js';

export type { CommonFlags } from './flags.js';

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
  const { project, source: projectSource, file, issues } = projectIn(dir, dirArg, io, problems);
  const chosen = issues.length ? undefined : check(() => environment(project, file, f, io));
  for (const t of namedTokenValues(project, io)) io.secret?.(t);
  const baseUrlGiven = f.baseUrl ?? io.env.TAPEDECK_BASE_URL;
  const token = chosen && check(() => tokenSource(f.tokenFile, chosen.envName, chosen.env, role, baseUrlGiven));
  const registry = registryOf(project, problems);
  const limits = limitsOf(f, project?.defaults ?? {}, check, () =>
    chosen ? check(() => budgetSettings(chosen.env?.budget, f, budgetRole)) : undefined,
  );
  const chosenRun = selections(f, io, check, { project, projectSource, registry, issues });
  // validate reads no state: a state URL whose password is not in its environment (a pull request's job) is no problem.
  const state =
    chosen &&
    (readsState
      ? check(() => stateLocation(f, io, dir, chosen.envName, chosen.env))
      : defaultState(dir, chosen.envName));
  const vars = variables(chosen?.env, f, io, check);
  if (issues.length || problems.length || !output || !chosen || !state || !token)
    reportProblems(issues, problems, output?.issueFormat, io);
  const { envName, env } = chosen;
  const clock = io.clock ?? systemClock;
  return {
    ...switches(f, io),
    dir,
    configuration: configurationName(dir, project),
    envName,
    baseUrl: baseUrlGiven ?? env?.base_url,
    state,
    ...limits.client,
    ...(limits.budget ? { budget: limits.budget } : {}),
    runDeadlineAt: clock.ms() + limits.deadline * 1000,
    runClock: clock,
    ...output,
    vars,
    ...chosenRun,
    registry,
    project,
    projectSource,
    clock: () => clock.now(),
    token: () => readToken(token, io),
    tokenSource: token.shown,
  };
}
