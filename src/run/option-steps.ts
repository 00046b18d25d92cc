// The steps of buildOptions (options.ts), each a group of its rules: every problem is collected by `check`, in the
// order the flags are checked, and reported together.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderers, type IssueFormat } from '../report/formats.js';
import { alreadyPrinted, Reported, TapedeckError, UserError } from '../errors.js';
import { withOverrides, type Registry } from '../kinds/registry.js';
import { loadProject, type Environment, type Project } from '../project/project.js';
import { parseTargets } from './targets.js';
import { parseNow, parseOverrides, projectWindows } from './windows.js';
import type { Io, SourceDoc } from '../types.js';
import type { BudgetSettings } from '../budget/settings.js';
import { parseVars, positiveInt, readAllowances, readVarFile, refreshMode, wholeSeconds } from './flag-values.js';
import type { collectProblems } from './environment.js';
import type { CommonFlags } from './flags.js';

const isFile = (path: string) => {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false; // a missing DIR is reported with the documents (validate), or made (export)
  }
};

/** The on/off flags, and the --var-file paths as given. */
export function switches(f: CommonFlags, io: Io) {
  return {
    recreateMissing: !!f.recreateMissing,
    insecureHttp: !!f.insecureHttp,
    debug: !!f.debug,
    quiet: !!f.quiet,
    varFiles: (f.varFile ?? []).map((v) => resolve(io.cwd, v)),
    documentEnv: f.documentEnv && new Set(f.documentEnv),
    allOrNothing: !!f.allOrNothing,
  };
}

/** The kinds, with the project file's endpoint overrides; a bad override is a problem. */
export function registryOf(project: Project | undefined, problems: TapedeckError[]): Registry {
  const { registry, problems: endpoints } = withOverrides(project?.endpoints);
  if (endpoints.length)
    problems.push(new UserError(`tapedeck.yaml: endpoints: ${endpoints.join('; ')}`, { code: 'E_VALIDATION' }));
  return registry;
}

type Check = ReturnType<typeof collectProblems>['check'];

/** What the run is to do: --target, --allow, --refresh, the windows (their located problems join the project
 *  file's `issues`), --override-window and --now. */
export function selections(
  f: CommonFlags,
  io: Io,
  check: Check,
  p: {
    project?: Project;
    projectSource?: SourceDoc;
    registry: Registry;
    issues: ReturnType<typeof loadProject>['issues'];
  },
) {
  const targets = check(() => parseTargets(f.target)) ?? [];
  const allow = check(() => readAllowances(f.allow, f.allowFile, io.cwd)) ?? [];
  const refresh = check(() => refreshMode(f.refresh)) ?? 'full';
  // Windows that cannot work are located errors of the project file, as its schema's are.
  const compiled = p.issues.length
    ? { windows: [], issues: [] }
    : projectWindows(p.project, p.projectSource, p.registry);
  p.issues.push(...compiled.issues.filter((i) => i.severity === 'error'));
  const overrides = check(() => parseOverrides(f.overrideWindow, compiled.windows)) ?? [];
  const now = check(() => parseNow(f.now));
  return { targets, allow, refresh, windows: compiled.windows, overrides, ...(now ? { now } : {}) };
}

/** The project file of DIR, or none where DIR is a file (a problem: the documents are in a directory). */
export function projectIn(dir: string, dirArg: string | undefined, io: Io, problems: TapedeckError[]) {
  if (!isFile(dir)) return loadProject(dir, io.cwd);
  problems.push(
    new UserError(
      `${dirArg} is not a directory: give the directory that holds the documents (every *.yaml/*.yml below it is read)`,
      { code: 'E_INPUT' },
    ),
  );
  return { project: undefined, source: undefined, file: '', issues: [] };
}

/** The client's limits and the run's deadline (seconds), each flag over the project file's default; the budget is
 *  checked between them, so that problems are reported in the flags' order. */
export function limitsOf(
  f: CommonFlags,
  defaults: NonNullable<Project['defaults']>,
  check: Check,
  budgetOf: () => BudgetSettings | undefined,
) {
  const number = (name: string, raw: string | undefined, fallback: number, min = 1) =>
    check(() => positiveInt(name, raw, fallback, min)) ?? fallback;
  const concurrency = number('--concurrency', f.concurrency, defaults.concurrency ?? 8);
  const maxRps = f.maxRps === undefined ? defaults.max_rps : number('--max-rps', f.maxRps, 1);
  const seconds = (name: string, raw: string | undefined, fallback: number) =>
    check(() => wholeSeconds(name, raw, fallback)) ?? fallback;
  const timeout = seconds('--timeout', f.timeout, defaults.timeout ?? 30);
  const retries = number('--retries', f.retries, defaults.retries ?? 4, 0);
  const budget = budgetOf();
  const retryDeadline = seconds('--retry-deadline', f.retryDeadline, defaults.retry_deadline ?? 120);
  const deadline = seconds('--deadline', f.deadline, 3600);
  const client = {
    concurrency,
    maxRps,
    timeoutMs: timeout * 1000,
    maxAttempts: retries + 1,
    deadlineMs: retryDeadline * 1000,
  };
  return { client, budget, deadline };
}

/** Variables: the environment's vars, overridden by --var, overridden by --var-file (later sources win). */
export function variables(env: Environment | undefined, f: CommonFlags, io: Io, check: Check): Record<string, unknown> {
  const vars = { ...(env?.vars ?? {}), ...check(() => parseVars(f.var)) };
  for (const varFile of f.varFile ?? [])
    Object.assign(
      vars,
      check(() => readVarFile(varFile, io.cwd)),
    );
  return vars;
}

/** Every problem found, in the chosen issue format; a machine format says the run failed, whatever failed: a JSON
 *  that said "valid" would be believed. */
export function reportProblems(
  issues: ReturnType<typeof loadProject>['issues'],
  problems: TapedeckError[],
  format: IssueFormat | undefined,
  io: Io,
): never {
  const printed = renderers[format ?? 'text'].issues({ issues, problems });
  io.out(printed.out);
  io.err(printed.err);
  // Said in the chosen format just now: the CLI's catch prints its line, and no machine output again.
  if (!issues.length && problems.length === 1) throw alreadyPrinted(problems[0]);
  for (const p of problems) io.err(`error: ${p.line()}\n`);
  throw new Reported();
}
