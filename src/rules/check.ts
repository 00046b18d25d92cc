// Every rule on every change of a plan: the guardrails' verdict, part of the plan. Pure but for the clock (`now`,
// given by the caller). The entry point for plan, apply, and anything else that must respect denials. It gives the
// event loop a turn every few milliseconds (the agent's listener answers during a long check), and stops at the
// run's --deadline, inside an evaluation too (meter.ts).
import { UserError } from '../errors.js';
import type { Allowance, Plan, RuleFinding, RulesReport } from '../types.js';
import { changeVariable, type ChangeContext } from './change.js';
import type { CompiledRule, RuleVars } from './compile.js';
import { EvaluationStopped } from './stopped.js';

export interface RuleContext extends ChangeContext {
  /** the time rules compare with (`now`) */
  now: Date;
  /** --allow RULE=REASON (and a saved plan's): these rules' denials do not stop an apply */
  allow?: Allowance[];
  /** where an address's document is, for annotations */
  locate?: (address: string) => { file: string; line?: number } | undefined;
  /** the run's --deadline (epoch ms): past it the check stops with E_DEADLINE */
  deadlineAt?: number;
}

/** How long the check keeps the event loop before giving it a turn. */
const TURN_MS = 10;
const nextTurn = () => new Promise<void>((done) => setImmediate(done));

/** The check stopped by the run's deadline: the run fails (nothing unchecked may be applied). */
const deadlineError = (checked: number, of: number) =>
  new UserError(
    `the run passed its --deadline while the guardrail rules were evaluated (${checked} of ${of} changes checked)`,
    { code: 'E_DEADLINE' },
  );

const text = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? String(v));
const reason = (e: unknown) =>
  ((e as { summary?: string }).summary ?? (e as Error).message ?? String(e)).split('\n')[0];

/** The deadline's stop goes on up; any other throw is the evaluation's own error. */
function rethrowDeadline(e: unknown): void {
  if (e instanceof EvaluationStopped && e.reason === 'deadline') throw e;
}

/** What a failed rule says; a messageExpression that throws says why instead (the failure stands). */
function messageOf(r: CompiledRule, vars: RuleVars, deadlineAt: number): string {
  try {
    return text(r.message(vars, deadlineAt));
  } catch (e) {
    rethrowDeadline(e);
    return `(its messageExpression could not be evaluated: ${reason(e)})`;
  }
}

/** One rule on one change: nothing when it passes, else failed or error and what it says. */
function verdict(r: CompiledRule, vars: RuleVars, deadlineAt: number): [RuleFinding['outcome'], string] | undefined {
  try {
    const passed = r.test(vars, deadlineAt);
    if (typeof passed !== 'boolean') throw new Error(`the expression gave ${text(passed)}, not true or false`);
    return passed ? undefined : ['failed', messageOf(r, vars, deadlineAt)];
  } catch (e) {
    rethrowDeadline(e);
    return ['error', `the rule could not be evaluated: ${reason(e)}`];
  }
}

/** The rules that look at a change, by its kind, action and the environment; a rule whose expression starts with
 *  `change.kind != "X" ||` passes, unevaluated, on a change of another kind (compile.ts: shortCircuit). */
function matches(r: CompiledRule, kind: string, action: string, env: string): boolean {
  if ((r.kinds && !r.kinds.has(kind)) || (r.actions && !r.actions.has(action))) return false;
  if (r.environments && !r.environments.has(env)) return false;
  const p = r.passesUnless;
  return !p || (p.field === 'kind' ? kind : p.field === 'action' ? action : env) === p.value;
}

/**
 * Every rule on every change of `plan` (as shown: sensitive values masked). A rule whose expression is not true
 * fails; one that throws, or goes past its cost budget, is that rule's error for that change (fail closed: a deny
 * rule's error denies). Throws only E_DEADLINE, when the run's deadline passes before every change is checked.
 */
export async function checkRules(plan: Plan, rules: readonly CompiledRule[], ctx: RuleContext): Promise<RulesReport> {
  const allowed = new Map((ctx.allow ?? []).map((a) => [a.rule, a.reason]));
  const deadlineAt = ctx.deadlineAt ?? Infinity;
  const results: RuleFinding[] = [];
  let turnAt = Date.now() + TURN_MS;
  for (const [i, c] of plan.changes.entries()) {
    const now = Date.now();
    if (now > deadlineAt) throw deadlineError(i, plan.changes.length);
    if (now > turnAt) {
      await nextTurn();
      turnAt = Date.now() + TURN_MS;
    }
    let vars: RuleVars | undefined;
    for (const r of rules) {
      if (!matches(r, c.kind, c.action, ctx.environment)) continue;
      // Made once per change, and only for a change some rule looks at.
      vars ??= { change: changeVariable(c, ctx), now: ctx.now };
      let found: ReturnType<typeof verdict>;
      try {
        found = verdict(r, vars, deadlineAt);
      } catch {
        throw deadlineError(i, plan.changes.length);
      }
      if (!found) continue;
      const [outcome, message] = found;
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
