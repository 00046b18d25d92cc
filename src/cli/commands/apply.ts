import { applyPlan } from '../../apply/apply.js';
import { UserError } from '../../errors.js';
import { renderApply, renderPlan, renderResult } from '../../report/text.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../options.js';
import { makePlan } from '../pipeline.js';

export interface ApplyFlags extends CommonFlags {
  yes?: boolean;
}

export async function applyCommand(dir: string | undefined, flags: ApplyFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  if (!flags.yes && !io.isTTY) throw new UserError('apply needs confirmation: pass --yes (stdin is not a terminal)');
  const { plan, state, client, registry } = await makePlan(opts, io);
  try {
    const say = opts.json ? io.err : io.out;
    say(renderPlan(plan));
    if (!plan.summary.create && !plan.summary.update) {
      if (opts.json) io.out(`${JSON.stringify({ format_version: 1, results: [], summary: { applied: 0, failed: 0, skipped: 0, unchanged: plan.summary.noop } }, null, 2)}\n`);
      return 0;
    }
    if (!flags.yes) {
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
    if (opts.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    else io.out(renderApply(result));
    for (const r of result.results.filter((x) => x.outcome === 'failed')) io.err(`error: ${r.address}: ${r.error}\n`);
    return result.summary.failed || result.summary.skipped ? 1 : 0;
  } finally {
    await client.close();
  }
}
