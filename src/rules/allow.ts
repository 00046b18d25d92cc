// `--allow RULE=REASON` and `--allow-file FILE` (one RULE=REASON a line): a guardrail's denial let through, with the
// reason a reviewer will read. Allowances are recorded in the plan, shown, and kept in the apply result and the
// state's history (database state). They are an approval, so they come only from whoever runs the command: a saved
// plan's recorded allowances are shown beside the apply's (savedAllowanceNotes), never taken from the file.
import { UserError } from '../errors.js';
import type { Allowance, RulesReport } from '../types.js';

/** One RULE=REASON, or undefined when it lacks a rule or a reason. */
function allowance(item: string): Allowance | undefined {
  const eq = item.indexOf('=');
  const rule = (eq < 0 ? item : item.slice(0, eq)).trim();
  const reason = eq < 0 ? '' : item.slice(eq + 1).trim();
  return rule && reason ? { rule, reason } : undefined;
}

/** `list` with `a` added; the same rule twice with two reasons is refused (which one would the record keep?). */
function addAllowance(list: Allowance[], a: Allowance): void {
  const same = list.find((x) => x.rule === a.rule);
  if (same && same.reason !== a.reason)
    throw new UserError(`--allow ${a.rule} is given twice with different reasons: give it once`);
  if (!same) list.push(a);
}

/** The --allow flags as allowances; a flag without a rule or without a reason is refused. */
export function parseAllowances(flags: string[] = []): Allowance[] {
  const out: Allowance[] = [];
  for (const item of flags) {
    const a = allowance(item);
    if (!a)
      throw new UserError(
        `--allow takes RULE=REASON (the reason is recorded with the plan), not ${JSON.stringify(item)}`,
      );
    addAllowance(out, a);
  }
  return out;
}

/**
 * An allowances file (`--allow-file`): one RULE=REASON a line, as --allow takes it; blank lines and lines starting
 * with `#` are left out. `into`: the allowances so far (the --allow flags), to which the file's are added.
 */
export function parseAllowanceFile(text: string, file: string, into: Allowance[] = []): Allowance[] {
  const out = [...into];
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    const item = line.trim();
    if (!item || item.startsWith('#')) continue;
    const a = allowance(item);
    if (!a)
      throw new UserError(
        `${file}:${i + 1}:${line.length - line.trimStart().length + 1}: --allow-file takes one RULE=REASON a line (# starts a comment), not ${JSON.stringify(item)}`,
        { code: 'E_INPUT' },
      );
    addAllowance(out, a);
  }
  return out;
}

/**
 * What a saved plan recorded as allowed, beside what its apply allows: one note for each recorded allowance the
 * apply does not give as recorded. Shown, never merged: the file is anyone's to edit, its checksum anyone's to remake.
 */
export function savedAllowanceNotes(recorded: Allowance[], given: Allowance[]): string[] {
  const notes: string[] = [];
  for (const a of recorded) {
    const now = given.find((g) => g.rule === a.rule);
    if (now?.reason === a.reason) continue;
    notes.push(
      now
        ? `the saved plan records --allow ${a.rule}=${a.reason} (given to plan); this apply's reason, ${JSON.stringify(now.reason)}, is the one recorded`
        : `the saved plan records --allow ${a.rule}=${a.reason} (given to plan); an apply takes its allowances only from its own --allow and --allow-file`,
    );
  }
  return notes;
}

/** An allowance naming no rule is an error: a typo would otherwise let nothing through, silently. */
export function checkAllowanceNames(allow: Allowance[], rules: readonly string[]): void {
  const unknown = allow.filter((a) => !rules.includes(a.rule)).map((a) => a.rule);
  if (!unknown.length) return;
  const known = rules.length ? `the rules are ${rules.join(', ')}` : 'the configuration has no rules';
  throw new UserError(`--allow ${unknown.join(', ')}: no rule has that name (${known})`);
}

/** The denials that stop an apply: deny findings (failed, or an error: fail closed) that no allowance covers. */
export const denials = (report: RulesReport | undefined) =>
  (report?.results ?? []).filter((r) => r.severity === 'deny' && r.allowed === undefined);

/** The allowances that let a denial through (an allowance for a rule that found nothing is not reported). */
export const usedAllowances = (report: RulesReport | undefined): Allowance[] =>
  (report?.allowances ?? []).filter((a) => report!.results.some((r) => r.rule === a.rule && r.allowed !== undefined));
