import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Reported, UserError } from '../../errors.js';
import { readSavedPlan } from '../../plan/saved.js';
import { progress, progressMode } from '../../report/progress.js';
import { styleFor } from '../../report/style.js';
import { ISSUE_FORMATS, renderers } from '../../report/formats.js';
import { applyFailed, destination, unrecorded } from '../../report/text.js';
import type { StateBackend } from '../../state/backend.js';
import { State } from '../../state/state.js';
import type { ApplyResult, Plan } from '../../types.js';
import type { Io } from '../io.js';
import { stopOnSignals } from '../../util/signals.js';
import { buildOptions, chosenEnvironment, type CommonFlags, type RunOptions } from '../../run/options.js';
import { deniedError, denialLines } from '../../run/guardrails.js';
import { applyPlanned, makePlan, type Planned } from '../../run/pipeline.js';
import { remakeSaved } from '../../run/saved-apply.js';
import { stateShown, withStateLock } from '../../run/state-access.js';
import { planRenderOptions } from './plan.js';

export interface ApplyFlags extends CommonFlags {
  yes?: boolean;
  lockTimeout?: string;
  plan?: string;
}

export async function applyCommand(dir: string | undefined, flags: ApplyFlags, io: Io): Promise<number> {
  // A saved plan settles the directory and the environment first: the project file, the environments and the
  // state's place all come from them.
  const saved = flags.plan ? savedTarget(flags.plan, dir, flags, io) : undefined;
  const formats = { formats: ISSUE_FORMATS, role: 'apply' as const };
  const opts = saved
    ? buildOptions(saved.dir, { ...flags, env: saved.plan.environment.name, target: saved.plan.targets }, io, formats)
    : buildOptions(dir, flags, io, formats);
  if (!flags.yes && !io.isTTY) throw new UserError('apply needs confirmation: pass --yes (stdin is not a terminal)');
  // A rehearsal's time never decides a real write: apply checks the windows when it writes.
  if (flags.now !== undefined)
    throw new UserError('--now is for plan (a rehearsal): apply checks the change windows at the time it writes');
  // The lock is held on the state's backend for the whole run (a database connection, or a lock file).
  return withStateLock(opts, io, flags.lockTimeout, (backend) =>
    saved ? applySaved(saved.plan, backend, opts, flags, io) : planAndApply(backend, opts, flags, io),
  );
}

const samePath = (a: string, b: string) =>
  a === b || (existsSync(a) && existsSync(b) && realpathSync(a) === realpathSync(b));

/**
 * The saved plan and where it applies: the directory it records (relative to the plan file, so a checkout moved
 * whole still works from any working directory) and its environment. A DIR, --env or TAPEDECK_ENV that says
 * otherwise is refused before anything is read. A plan without a directory (saved from `plan --json`) takes DIR.
 */
function savedTarget(
  file: string,
  dirArg: string | undefined,
  flags: ApplyFlags,
  io: Io,
): { plan: Plan; dir?: string } {
  const path = resolve(io.cwd, file);
  const plan = readSavedPlan(path);
  const env = chosenEnvironment(flags, io);
  if (env !== undefined && env !== plan.environment.name) {
    const from = flags.env !== undefined ? '--env' : 'TAPEDECK_ENV';
    throw new UserError(
      `the saved plan ${file} was made for environment ${plan.environment.name}, not ${env} (${from}): leave ${from} out, or make the plan again`,
    );
  }
  // A targeted plan applies with its own targets; others would make another plan.
  const asked = [...new Set(flags.target ?? [])].sort().join(', ');
  if (flags.target && asked !== [...(plan.targets ?? [])].sort().join(', ')) {
    const made = plan.targets ? `with --target ${plan.targets.join(', ')}` : 'without --target';
    throw new UserError(
      `the saved plan ${file} was made ${made}, not --target ${asked}: leave --target out (the plan applies with its own), or make the plan again`,
    );
  }
  const mode = plan.refresh ? 'changed' : 'full';
  if (flags.refresh !== undefined && flags.refresh !== mode) {
    throw new UserError(
      `the saved plan ${file} was made with --refresh ${mode}, not --refresh ${flags.refresh}: leave --refresh out (a saved plan reads only what it writes), or make the plan again`,
    );
  }
  if (!plan.configuration) return { plan, dir: dirArg };
  const dir = resolve(dirname(path), plan.configuration.dir);
  const given = dirArg === undefined ? undefined : resolve(io.cwd, dirArg);
  if (given !== undefined && !samePath(given, dir)) {
    throw new UserError(
      `the saved plan ${file} was made from the configuration in ${dir}, not ${given}: leave DIR out, or make the plan again`,
    );
  }
  if (!existsSync(dir)) {
    throw new UserError(
      `the saved plan ${file} records its configuration as ${plan.configuration.dir} (relative to the plan file), but ${dir} does not exist: move the plan file together with its checkout, or make the plan again`,
      { code: 'E_PLAN_STALE' },
    );
  }
  return { plan, dir };
}

async function planAndApply(backend: StateBackend, opts: RunOptions, flags: ApplyFlags, io: Io): Promise<number> {
  const planned = await makePlan(opts, io, { state: () => State.open(backend) });
  try {
    return await execute(planned, opts, flags, io);
  } finally {
    await planned.client.close();
  }
}

/**
 * A saved plan is applied only if nothing it was made from has moved: the configuration, the state serial, and
 * every resource it writes, read again; otherwise nothing is written (saved-apply.ts).
 */
async function applySaved(
  saved: Plan,
  backend: StateBackend,
  opts: RunOptions,
  flags: ApplyFlags,
  io: Io,
): Promise<number> {
  const made = await remakeSaved(saved, backend, opts, io);
  if ('stale' in made) {
    const stale = `the saved plan ${flags.plan} is stale; nothing was written. Make a new plan.`;
    io.err(`error: ${stale}\n${made.stale.map((r) => `  ${r}\n`).join('')}`);
    throw new Reported([new UserError(`${stale} ${made.stale.join('; ')}`, { code: 'E_PLAN_STALE' })]);
  }
  try {
    // The saved plan shows what was reviewed; the plan made again holds the same changes and their sensitive values.
    return await execute(made, opts, flags, io);
  } finally {
    await made.client.close();
  }
}

/** The plan is executed; `shown` (sensitive values masked) is what is printed, with the windows as they are now
 *  (made or remade just now); applyPlanned checks them once more when it writes if a question was asked. */
async function execute(planned: Planned, opts: RunOptions, flags: ApplyFlags, io: Io): Promise<number> {
  const { plan, shown } = planned;
  const preview = renderers[opts.format].preview(shown, planRenderOptions(opts, io));
  io.out(preview.out);
  io.err(preview.err);
  const denied = denialLines(plan);
  if (denied.length) {
    io.err(denied.map((l) => `${l}\n`).join(''));
    throw new Reported([deniedError(plan)!]);
  }
  const changes = plan.changes.length - plan.summary.noop;
  const stateFile = stateShown(opts, io);
  if (changes && !flags.yes) {
    // The question names where the writes go: a "yes" meant for staging must not be given to production.
    const answer =
      (await io.ask?.(
        `Apply these changes to ${destination(plan.environment, stateFile)}? Only "yes" is accepted: `,
      )) ?? '';
    if (answer.trim() !== 'yes') {
      io.err('Apply cancelled; nothing was sent.\n');
      return 1;
    }
    // An answer may come long after the plan: the windows are read again when it writes.
    planned.windowsFresh = false;
  }
  const applying = progress(io, progressMode(io, opts.quiet || opts.debug), 'applying', changes);
  const signals = stopOnSignals({
    first: (signal) => io.err(`${signal}: stopping after the writes in flight (again to exit at once)\n`),
    again: (signal) => io.err(`${signal} again: exiting now\n`),
    exitCode: 130,
  });
  const result = await applyPlanned(planned, opts, 'apply', {
    onResult: applying.tick,
    stopping: signals.stopping,
  }).finally(signals.release);
  applying.done();
  // With nothing to change, apply still records what it found (ids of adopted resources) in the state.
  io.out(
    renderers[opts.format].apply(result, {
      style: styleFor(io),
      quiet: opts.quiet,
      state: stateFile,
      environment: plan.environment,
      mask: io.mask,
    }),
  );
  reportProblems(result, io);
  return applyFailed(result) ? 1 : 0;
}

/** What did not go as planned, on stderr: each change not applied, not kept or not read back, and a state that
 *  could not be saved (with what it does not record). */
function reportProblems(result: ApplyResult, io: Io): void {
  for (const r of result.results.filter((x) => x.outcome !== 'applied')) io.err(`error: ${r.address}: ${r.error}\n`);
  for (const r of result.results.filter((x) => x.not_kept))
    io.err(`error: ${r.address}: not kept: ${r.not_kept!.join('; ')}\n`);
  for (const r of result.results.filter((x) => x.unverified))
    io.err(`warning: ${r.address}: written, but reading it back failed: ${r.unverified}\n`);
  if (!result.state_error) return;
  const lost = unrecorded(result);
  io.err(`error: the state could not be saved: ${result.state_error}\n`);
  if (lost.length)
    io.err(
      `  it does not record: ${lost.join(', ')}; the next plan shows what is left (set a created resource's id in its document if it plans that create again)\n`,
    );
}
