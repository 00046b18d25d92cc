// What each step of a run reads of the run's options: narrow views of RunOptions, so that a step declares what it
// depends on (and a caller, a test or another front end, can give it just that) instead of taking the whole bag.
// The composed steps (makePlan, applyPlanned, remakeSaved) take the union of what their steps read.
import type { RunOptions } from './options.js';

/** Where the documents are and how they are read and checked: files, environment, variables, schemas, rules. */
export type DocumentInputs = Pick<
  RunOptions,
  | 'dir'
  | 'varFiles'
  | 'envName'
  | 'project'
  | 'projectSource'
  | 'vars'
  | 'documentEnv'
  | 'registry'
  | 'issueFormat'
  | 'allow'
>;

/** Where a budget's bucket is: beside the state, for this configuration and environment (run/budget-place.ts). */
export type BudgetPlaceInputs = Pick<RunOptions, 'state' | 'configuration' | 'envName' | 'timeoutMs'>;

/**
 * Reaching the platform: its URL, the token, the client's limits, retries, deadlines and clock, and the fleet's
 * budget with where its bucket is.
 */
export type PlatformInputs = BudgetPlaceInputs &
  Pick<
    RunOptions,
    | 'budget'
    | 'baseUrl'
    | 'insecureHttp'
    | 'token'
    | 'tokenSource'
    | 'concurrency'
    | 'maxRps'
    | 'timeoutMs'
    | 'maxAttempts'
    | 'deadlineMs'
    | 'runDeadlineAt'
    | 'runClock'
    | 'debug'
  >;

/** Where the state is, and whose it is (the configuration and environment it is bound to). */
export type StateInputs = Pick<RunOptions, 'state' | 'configuration' | 'envName' | 'timeoutMs' | 'dir' | 'project'>;

/** How the documents are read and planned: which of them, and what reading may do. */
export type PlanningInputs = Pick<
  RunOptions,
  'envName' | 'configuration' | 'targets' | 'registry' | 'refresh' | 'recreateMissing' | 'quiet' | 'debug'
>;

/** The verdicts on a plan: the guardrails' time and deadline, the change windows and their overrides. */
export type VerdictInputs = Pick<
  RunOptions,
  'envName' | 'now' | 'clock' | 'runDeadlineAt' | 'runClock' | 'registry' | 'windows' | 'overrides' | 'allOrNothing'
>;

/** Everything makePlan reads: the documents, the state, the platform, planning and the verdicts. */
export type PlanInputs = DocumentInputs & StateInputs & PlatformInputs & PlanningInputs & VerdictInputs;

/** What writing a plan reads besides it: whose the resources are, the windows again, the concurrency. */
export type ApplyInputs = Pick<
  RunOptions,
  'baseUrl' | 'envName' | 'dir' | 'registry' | 'concurrency' | 'state' | 'project'
> &
  VerdictInputs;
