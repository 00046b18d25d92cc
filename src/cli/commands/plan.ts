import { resolve } from 'node:path';
import { renderers } from '../../report/formats.js';
import { styleFor } from '../../report/style.js';
import type { Plan } from '../../types.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags, type RunOptions } from '../options.js';
import { makePlan } from '../pipeline.js';
import { writePrivateFile } from '../../util/files.js';

export interface PlanFlags extends CommonFlags {
  out?: string;
  detailedExitcode?: boolean;
}

export function printPlan(plan: Plan, opts: RunOptions, io: Io, write: (t: string) => void = io.out): void {
  write(renderers[opts.format].plan(plan, { style: styleFor(io), quiet: opts.quiet }));
}

export async function planCommand(dir: string | undefined, flags: PlanFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const { plan, client } = await makePlan(opts, io);
  await client.close();
  // The saved plan holds no secret: only managed, writable fields, ids and fingerprints (hashes) of what was read.
  if (flags.out) writePrivateFile(resolve(io.cwd, flags.out), `${JSON.stringify(plan, null, 2)}\n`);
  printPlan(plan, opts, io);
  const changed = plan.summary.create + plan.summary.update > 0;
  return flags.detailedExitcode && changed ? 2 : 0;
}
