import { ISSUE_FORMATS } from '../../report/formats.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../options.js';
import { checkDocuments, checkRuleFiles, noDocuments, printIssues } from '../check.js';

/** Offline: every document and guardrail rule checked, every issue printed at once in the format asked for (also
 *  GitHub annotations). */
export async function validateCommand(dir: string | undefined, flags: CommonFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io, { formats: ISSUE_FORMATS, readsState: false });
  const { issues, found } = checkDocuments(opts, io);
  issues.push(...(await checkRuleFiles(opts, io)).issues);
  if (!found && !issues.length) throw noDocuments(opts);
  return printIssues(opts, io, issues, found) ? 1 : 0;
}
