// Every rule on every change of a plan: the guardrails' verdict, part of the plan. Pure but for the clock (`now`,
// given by the caller). The entry point for plan, apply, and anything else that must respect denials.
import type { Allowance, Plan, RuleFinding, RulesReport } from '../types.js';
import { changeVariable, type ChangeContext } from './change.js';
import type { CompiledRule, RuleVars } from './compile.js';

export interface RuleContext extends ChangeContext {
  /** the time rules compare with (`now`) */
  now: Date;
  /** --allow RULE=REASON (and a saved plan's): these rules' denials do not stop an apply */
  allow?: Allowance[];
  /** where an address's document is, for annotations */
  locate?: (address: string) => { file: string; line?: number } | undefined;
}

const text = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? String(v));
const reason = (e: unknown) =>
  ((e as { summary?: string }).summary ?? (e as Error).message ?? String(e)).split('\n')[0];

/** What a failed rule says; a messageExpression that throws says why instead (the failure stands). */
function messageOf(r: CompiledRule, vars: RuleVars): string {
  try {
    return text(r.message(vars));
  } catch (e) {
    return `(its messageExpression could not be evaluated: ${reason(e)})`;
  }
}

/** The rules that look at a change, by its kind, action and the environment. */
const matches = (r: CompiledRule, kind: string, action: string, env: string) =>
  (!r.kinds || r.kinds.has(kind)) &&
  (!r.actions || r.actions.has(action)) &&
  (!r.environments || r.environments.has(env));

/**
 * Every rule on every change of `plan` (as shown: sensitive values masked). A rule whose expression is not true
 * fails; one that throws is that rule's error for that change (fail closed: a deny rule's error denies). Never throws.
 */
export function checkRules(plan: Plan, rules: readonly CompiledRule[], ctx: RuleContext): RulesReport {
  const allowed = new Map((ctx.allow ?? []).map((a) => [a.rule, a.reason]));
  const results: RuleFinding[] = [];
  for (const c of plan.changes) {
    let vars: RuleVars | undefined;
    for (const r of rules) {
      if (!matches(r, c.kind, c.action, ctx.environment)) continue;
      // Made once per change, and only for a change some rule looks at.
      vars ??= { change: changeVariable(c, ctx), now: ctx.now };
      let outcome: RuleFinding['outcome'] | undefined;
      let message = '';
      try {
        const passed = r.test(vars);
        if (typeof passed !== 'boolean') throw new Error(`the expression gave ${text(passed)}, not true or false`);
        if (!passed) [outcome, message] = ['failed', messageOf(r, vars)];
      } catch (e) {
        [outcome, message] = ['error', `the rule could not be evaluated: ${reason(e)}`];
      }
      if (!outcome) continue;
      const where = ctx.locate?.(c.address);
      const allow = r.severity === 'deny' ? allowed.get(r.name) : undefined;
      results.push({
        rule: r.name,
        severity: r.severity,
        address: c.address,
        action: c.action,
        outcome,
        message,
        ...(where ? { file: where.file, ...(where.line ? { line: where.line } : {}) } : {}),
        ...(allow !== undefined ? { allowed: allow } : {}),
      });
    }
  }
  return { checked: rules.length, results, allowances: ctx.allow ?? [] };
}
