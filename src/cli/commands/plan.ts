import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderPlan } from '../../report/text.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../options.js';
import { makePlan } from '../pipeline.js';

export interface PlanFlags extends CommonFlags {
  out?: string;
  detailedExitcode?: boolean;
}

export async function planCommand(dir: string | undefined, flags: PlanFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const { plan, client } = await makePlan(opts, io);
  const requests = { ...client.counts };
  await client.close();
  if (flags.out) writeFileSync(resolve(io.cwd, flags.out), `${JSON.stringify(plan, null, 2)}\n`, { mode: 0o600 });
  if (opts.json) io.out(`${JSON.stringify(plan, null, 2)}\n`);
  else io.out(`${renderPlan(plan)}(${requests.reads} read request${requests.reads === 1 ? '' : 's'})\n`);
  const changed = plan.summary.create + plan.summary.update > 0;
  return flags.detailedExitcode && changed ? 2 : 0;
}
