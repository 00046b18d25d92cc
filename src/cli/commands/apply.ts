import { applyPlan } from '../../apply/apply.js';
import { UserError } from '../../errors.js';
import { renderApply, renderPlan, renderResult } from '../../report/text.js';
import type { Io } from '../io.js';
import { buildOptions, positiveInt, type CommonFlags, type RunOptions } from '../options.js';
import { acquireLock } from '../../state/lock.js';
import { makePlan } from '../pipeline.js';

export interface ApplyFlags extends CommonFlags {
  yes?: boolean;
  lockTimeout?: string;
}

export async function applyCommand(dir: string | undefined, flags: ApplyFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  if (!flags.yes && !io.isTTY) throw new UserError('apply needs confirmation: pass --yes (stdin is not a terminal)');
  const release = await acquireLock(opts.statePath, positiveInt('--lock-timeout', flags.lockTimeout, 0, 0) * 1000);
  try {
    return await planAndApply(opts, flags, io);
  } finally {
    release();
  }
}

async function planAndApply(opts: RunOptions, flags: ApplyFlags, io: Io): Promise<number> {
  const { plan, state, client, registry } = await makePlan(opts, io);
  try {
    const say = opts.json ? io.err : io.out;
    say(renderPlan(plan));
    const changes = plan.summary.create + plan.summary.update;
    if (changes && !flags.yes) {
      const answer = (await io.ask?.('Apply these changes? Only "yes" is accepted: ')) ?? '';
      if (answer.trim() !== 'yes') {
        io.err('Apply cancelled; nothing was sent.\n');
        return 1;
      }
    }
    const result = await applyPlan(plan, registry, client, state, {
      concurrency: opts.concurrency,
      onResult: opts.json ? undefined : (r) => opts.debug && io.err(`debug: ${renderResult(r).trim()}\n`),
    });
    // With nothing to change, apply still records what it found (ids of adopted resources) in the state.
    if (opts.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else if (changes) io.out(renderApply(result));
    for (const r of result.results.filter((x) => x.outcome === 'failed')) io.err(`error: ${r.address}: ${r.error}\n`);
    return result.summary.failed || result.summary.skipped ? 1 : 0;
  } finally {
    await client.close();
  }
}
