import { mkdirSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { UserError } from '../../errors.js';
import { withChecksum } from '../../plan/saved.js';
import { planOutProblem } from '../../plan/saved-out.js';
import { ISSUE_FORMATS, renderers, type RenderOptions } from '../../report/formats.js';
import { hasChanges } from '../../report/text.js';
import { styleFor } from '../../report/style.js';
import { jsonText } from '../../schema/values.js';
import type { Plan } from '../../types.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags, type RunOptions } from '../../run/options.js';
import { denialLines } from '../../run/guardrails.js';
import { makePlan } from '../../run/pipeline.js';
import { stateShown } from '../../run/state-access.js';
import { writePrivateFile } from '../../util/files.js';

export interface PlanFlags extends CommonFlags {
  out?: string;
  detailedExitcode?: boolean;
}

/** How plan and apply render a plan: where the state is, and the guardrails' findings as annotations (github). */
export function planRenderOptions(opts: RunOptions, io: Io): RenderOptions {
  return {
    style: styleFor(io),
    quiet: opts.quiet,
    state: stateShown(opts, io),
    annotations: opts.issueFormat === 'github',
    mask: io.mask,
  };
}

/**
 * The saved plan holds no secret: only managed, writable fields, ids and fingerprints (hashes) of what was read.
 * It records the configuration directory relative to itself, so a checkout moved whole (plan file included) between
 * CI jobs still applies, from any working directory.
 */
function savePlan(plan: Plan, file: string, dir: string): void {
  const rel = relative(dirname(file), dir).split(sep).join('/') || '.';
  try {
    mkdirSync(dirname(file), { recursive: true });
    writePrivateFile(file, jsonText(withChecksum({ ...plan, configuration: { dir: rel } })));
  } catch (e) {
    throw new UserError(
      `--out ${file}: cannot write the plan there (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      { code: 'E_INPUT' },
    );
  }
}

export async function planCommand(dir: string | undefined, flags: PlanFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io, { formats: ISSUE_FORMATS });
  const out = flags.out && resolve(io.cwd, flags.out);
  const problem = out && planOutProblem(out, opts.dir);
  if (problem) throw new UserError(`--out ${flags.out}: ${problem}`, { code: 'E_INPUT' });
  const { shown: plan, client } = await makePlan(opts, io);
  await client.close();
  // The saved plan holds no secret: only managed, writable fields, ids and fingerprints (hashes) of what was read.
  if (out) savePlan(plan, out, opts.dir);
  // The checksum (a walk over the whole plan) only where the format prints the plan as a value (JSON).
  io.out(renderers[opts.format].plan(plan, { ...planRenderOptions(opts, io), withChecksum }));
  const changed = hasChanges(plan);
  // As for a failed check in CI: a plan that apply would refuse is no plan to merge (without the flag: shown only).
  const denied = denialLines(plan);
  if (flags.detailedExitcode && denied.length) {
    io.err(denied.map((l) => `${l}\n`).join(''));
    return 1;
  }
  return flags.detailedExitcode && changed ? 2 : 0;
}
