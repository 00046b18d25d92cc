// One reconcile: fetch the branch, check a new commit (one that fails is reported and never used: the last good
// commit stays checked out), then plan it through the same pipeline as `plan`, and with --auto-apply write the plan
// through the same apply as `apply`. The run's output (issues, failures) is captured for the log and the status.
import { join } from 'node:path';
import { ApiError, errorCode, errorLine, Reported, UserError, type ErrorCode } from '../errors.js';
import { checkConfiguration } from '../run/check.js';
import { buildOptions, type CommonFlags, type RunOptions } from '../run/options.js';
import { applyPlanned, makePlan, type Planned } from '../run/pipeline.js';
import { formatIssue } from '../report/text.js';
import type { StateBackend } from '../state/backend.js';
import { State } from '../state/state.js';
import type { Change, Io, Plan } from '../types.js';
import { counted } from './events.js';
import type { CommitSource } from './git.js';
import { movedSettings, type Pinned } from './pinned.js';
import type { Commits, RunReport } from './run-report.js';

export type { Commits, RunReport };

export interface RunInput {
  checkout: CommitSource;
  path: string;
  flags: CommonFlags;
  backend: StateBackend;
  commits: Commits;
  autoApply: boolean;
  refresh: 'full' | 'changed';
  stopping: () => boolean;
  /** the agent's Io: its environment, its secrets */
  io: Io;
  /** the settings taken when the agent started, which a commit may not change (pinned.ts) */
  pinned?: Pinned;
}

/** The run's own Io: output captured line by line; file names relative to the checkout, as in the repository. */
function capturing(io: Io, cwd: string, details: string[]): Io {
  const keep = (t: string) => {
    for (const l of t.split('\n')) if (l.trim()) details.push(io.mask?.(l) ?? l);
  };
  return { out: keep, err: keep, env: io.env, cwd, isTTY: false, secret: io.secret, mask: io.mask, clock: io.clock };
}

/** The run's options for the checked-out commit (quiet: no progress lines). */
export const runOptions = (input: RunInput, io: Io): RunOptions =>
  buildOptions(join(input.checkout.dir, input.path), { ...input.flags, quiet: true, refresh: input.refresh }, io, {
    role: input.autoApply ? 'apply' : 'plan',
    budgetRole: 'agent',
  });

/** A commit's problems (project file, documents, rules), or none: exactly `validate`'s checks (checkConfiguration),
 *  and the settings the agent pinned at its start (pinned.ts) unchanged. */
async function problems(
  input: RunInput,
  io: Io,
  details: string[],
): Promise<{ message: string; code: ErrorCode } | undefined> {
  try {
    const opts = runOptions(input, io);
    const { issues, found } = await checkConfiguration(opts, io);
    issues.push(...movedSettings(opts, input.pinned));
    const errors = issues.filter((i) => i.severity === 'error');
    for (const i of errors) details.push(formatIssue(i));
    if (errors.length)
      return {
        message: `${counted(errors.length, 'error')} in the configuration; first: ${formatIssue(errors[0])}`,
        code: 'E_VALIDATION',
      };
    if (!found)
      return { message: `no documents found in ${input.path} (every *.yaml/*.yml below it is read)`, code: 'E_INPUT' };
    return undefined;
  } catch (e) {
    if (e instanceof Reported)
      return { message: details[0] ?? 'the project file or the options are not valid', code: e.code };
    if (e instanceof UserError) return { message: e.line(), code: e.code };
    throw e;
  }
}

/** The changes the plan's windows hold (apply checks them again when it writes, and records that verdict). */
function heldOf(plan: Plan): RunReport['held'] {
  const held = (plan.windows?.changes ?? []).filter((c) => c.held);
  if (!held.length) return undefined;
  return held.map((c) => ({
    address: c.address,
    action: c.action,
    windows: [...new Set(c.windows.filter((f) => !f.overridden).map((f) => f.window))],
    next_allowed: c.next_allowed,
  }));
}

/** When the first held change may go: the agent runs then rather than at its next interval. */
export function heldUntil(r: RunReport): Date | undefined {
  const times = (r.held ?? []).flatMap((h) => (h.next_allowed ? [Date.parse(h.next_allowed)] : []));
  return times.length ? new Date(Math.min(...times)) : undefined;
}

export async function reconcile(input: RunInput): Promise<RunReport> {
  const details: string[] = [];
  const io = capturing(input.io, input.checkout.dir, details);
  const report: RunReport = {
    result: 'failed',
    refresh: input.refresh,
    details,
    requests: { reads: 0, writes: 0, throttled: 0 },
  };
  try {
    const refused = await followBranch(input, io, details, report);
    if (refused) return refused;
    const opts = runOptions(input, io);
    // The documents were checked when the commit arrived; the token, variables from the environment and the
    // platform may have changed since, so every run loads and checks them again, as `plan` does.
    const planned = await makePlan(opts, io, { state: () => State.open(input.backend) });
    try {
      const { plan } = planned;
      report.notRead = plan.refresh?.not_read;
      report.summary = plan.summary;
      const changes = plan.changes.filter((c) => c.action !== 'noop');
      report.changes = changes.map((c) => ({ address: c.address, action: c.action }));
      report.remaining = changes.length;
      report.held = heldOf(plan);
      // A commit can stop the agent writing (agent.auto_apply: false), never make it write: the operator's flag
      // bounds it, and the schema refuses true.
      report.autoApply = input.autoApply && opts.project?.agent?.auto_apply !== false;
      if (report.autoApply && report.changes.length && !(await applyReported(planned, opts, input, report, changes)))
        return report;
    } finally {
      report.requests = { ...planned.client.counts };
      const budget = planned.client.budgetReport();
      if (budget) report.budget = { ...budget, share_rps: planned.client.opts.budget!.share };
      await planned.client.close();
    }
    return { ...report, result: 'success' };
  } catch (e) {
    if (e instanceof Reported)
      return {
        ...report,
        error: details.find((d) => !/^\d+ more/.test(d)) ?? 'the run failed (see the details)',
        errorCode: e.code,
      };
    if (e instanceof UserError || e instanceof ApiError)
      return { ...report, error: errorLine(e), errorCode: errorCode(e) };
    throw e;
  }
}

/**
 * The branch's tip fetched and, when new, checked: a commit that passes becomes the good one, one that does not is
 * rejected (the good one checked out again). The report that ends the run here (a rejected commit, or none good
 * yet), or undefined: the good commit is checked out and the run goes on.
 */
async function followBranch(
  input: RunInput,
  io: Io,
  details: string[],
  report: RunReport,
): Promise<RunReport | undefined> {
  const { commits, checkout } = input;
  const head = await checkout.fetch();
  report.tip = head;
  if (head !== commits.good && head !== commits.rejected) {
    await checkout.checkout(head);
    const problem = await problems(input, io, details);
    if (problem) {
      commits.rejected = head;
      if (commits.good) await checkout.checkout(commits.good);
      return {
        ...report,
        result: 'invalid',
        rejected: head,
        commit: commits.good,
        error: `commit ${head.slice(0, 12)} was not applied: ${problem.message}`,
        errorCode: problem.code,
      };
    }
    commits.good = head;
    commits.rejected = undefined;
  }
  if (!commits.good)
    return {
      ...report,
      result: 'invalid',
      error: `no commit of the branch has passed its checks yet (the last, ${head.slice(0, 12)}, did not)`,
      errorCode: 'E_VALIDATION',
    };
  report.commit = commits.good;
  return undefined;
}

/** The plan's changes applied, into the report; false when some failed (a change a window holds waits for it, as
 *  planned, and one skipped because the agent is stopping will be applied by the next run: neither fails). */
async function applyReported(
  planned: Planned,
  opts: RunOptions,
  input: RunInput,
  report: RunReport,
  changes: Change[],
): Promise<boolean> {
  const result = await applyPlanned(planned, opts, 'agent', { stopping: input.stopping });
  report.applied = result.summary;
  const applied = new Set(result.results.filter((r) => r.outcome === 'applied').map((r) => r.address));
  report.remaining = changes.filter((c) => !applied.has(c.address)).length;
  report.corrected = changes.filter((c) => applied.has(c.address) && c.drift?.length).length;
  report.failures = result.results
    .filter((r) => r.outcome !== 'applied' && r.error_code !== 'E_WINDOW')
    .map((r) => ({
      address: r.address,
      outcome: r.outcome,
      ...(r.error ? { error: r.error } : {}),
      ...(r.error_code ? { error_code: r.error_code } : {}),
    }));
  report.held = heldOf(planned.plan);
  if (!report.failures.some((f) => f.outcome !== 'skipped' || !input.stopping())) return true;
  const [first] = report.failures;
  const why = first.error ?? first.outcome;
  report.error = `${counted(report.failures.length, 'change')} not applied; first: ${first.address}: ${why}`;
  report.errorCode = first.error_code ?? (first.outcome === 'skipped' ? 'E_NOT_SENT' : 'E_API');
  return false;
}
