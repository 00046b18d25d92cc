import { resolve } from 'node:path';
import { summaryOf } from '../../plan/summary.js';
import { readSavedPlan } from '../../plan/saved.js';
import { renderers } from '../../report/formats.js';
import { oneLine } from '../../util/escape.js';
import { styleFor } from '../../report/style.js';
import type { Io } from '../io.js';
import { outputFormats } from '../../run/options.js';

export interface ShowFlags {
  format?: string;
  json?: boolean;
  quiet?: boolean;
}

/**
 * A saved plan, as `plan` printed it (Terraform's `show`): checked like `apply --plan` reads it (schema, checksum,
 * version), then rendered. Nothing is sent and no token is needed: the plan holds all it shows.
 */
export function showCommand(file: string, flags: ShowFlags, io: Io): number {
  const { format } = outputFormats(flags);
  const plan = readSavedPlan(resolve(io.cwd, file));
  // What the plan was made for goes to stderr, so stdout is exactly the rendering (JSON stays one value).
  if (!flags.quiet)
    io.err(
      `${file}: a plan for environment ${oneLine(plan.environment.name)} at ${oneLine(plan.environment.base_url)}, made against state serial ${plan.state.serial}; apply it with tapedeck apply --plan ${file}\n`,
    );
  // The checksum catches an accidental edit, not a deliberate one (anyone can compute it again): the counts are
  // taken from the changes shown, never from the file's own summary.
  io.out(
    renderers[format].plan(
      { ...plan, summary: summaryOf(plan.changes) },
      { style: styleFor(io), quiet: flags.quiet, mask: io.mask },
    ),
  );
  return 0;
}
