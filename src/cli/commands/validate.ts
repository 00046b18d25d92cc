import { alreadyPrinted } from '../../errors.js';
import { ISSUE_FORMATS, leftOutLine, renderers } from '../../report/formats.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../../run/options.js';
import { checkConfiguration, noDocuments, printIssues } from '../../run/check.js';

/** Offline: every document and guardrail rule checked, every issue printed at once in the format asked for (also
 *  GitHub annotations). */
export async function validateCommand(dir: string | undefined, flags: CommonFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io, { formats: ISSUE_FORMATS, readsState: false });
  const { issues, found, left } = await checkConfiguration(opts, io);
  if (!found && !left && !issues.length) {
    // A machine format says the run failed, as it does for every other failure (options.ts).
    const none = noDocuments(opts);
    io.out(renderers[opts.issueFormat].issues({ issues, problems: [none] }).out);
    throw alreadyPrinted(none);
  }
  const failed = printIssues(opts, io, issues, found);
  if (left) io.err(`${leftOutLine(left, opts.envName)}: not checked here; validate with their --env\n`);
  return failed ? 1 : 0;
}
