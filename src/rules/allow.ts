// `--allow RULE=REASON`: a guardrail's denial let through, with the reason a reviewer will read. Allowances are
// recorded in the plan, shown, and kept in the apply result and the state's history (database state).
import { UserError } from '../errors.js';
import type { Allowance, RulesReport } from '../types.js';

/** The --allow flags as allowances; a flag without a rule or without a reason is refused. */
export function parseAllowances(flags: string[] = []): Allowance[] {
  const out: Allowance[] = [];
  for (const item of flags) {
    const eq = item.indexOf('=');
    const rule = eq < 0 ? item : item.slice(0, eq);
    const reason = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (!rule || !reason)
      throw new UserError(
        `--allow takes RULE=REASON (the reason is recorded with the plan), not ${JSON.stringify(item)}`,
      );
    const same = out.find((a) => a.rule === rule);
    if (same && same.reason !== reason)
      throw new UserError(`--allow ${rule} is given twice with different reasons: give it once`);
    if (!same) out.push({ rule, reason });
  }
  return out;
}

/** An allowance naming no rule is an error: a typo would otherwise let nothing through, silently. */
export function checkAllowanceNames(allow: Allowance[], rules: readonly string[]): void {
  const unknown = allow.filter((a) => !rules.includes(a.rule)).map((a) => a.rule);
  if (!unknown.length) return;
  const known = rules.length ? `the rules are ${rules.join(', ')}` : 'the configuration has no rules';
  throw new UserError(`--allow ${unknown.join(', ')}: no rule has that name (${known})`);
}

/** Allowances from two sources (a saved plan's, then the command line's); the first reason for a rule wins. */
export function mergeAllowances(...lists: Allowance[][]): Allowance[] {
  const out: Allowance[] = [];
  for (const a of lists.flat()) if (!out.some((x) => x.rule === a.rule)) out.push(a);
  return out;
}

/** The denials that stop an apply: deny findings (failed, or an error: fail closed) that no allowance covers. */
export const denials = (report: RulesReport | undefined) =>
  (report?.results ?? []).filter((r) => r.severity === 'deny' && r.allowed === undefined);

/** The allowances that let a denial through (an allowance for a rule that found nothing is not reported). */
export const usedAllowances = (report: RulesReport | undefined): Allowance[] =>
  (report?.allowances ?? []).filter((a) => report!.results.some((r) => r.rule === a.rule && r.allowed !== undefined));
