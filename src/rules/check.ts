// Every rule on every change of a plan: the guardrails' verdict, part of the plan. Pure but for the clock (`now`,
// given by the caller). The entry point for plan, apply, and anything else that must respect denials. It gives the
// event loop a turn every few milliseconds (the agent's listener answers during a long check), and stops at the
// run's --deadline, inside an evaluation too (meter.ts).
import { UserError } from '../errors.js';
import type { Allowance, Change, Locate, Plan, RuleFinding, RulesReport } from '../types.js';
import { changeVariable, type ChangeContext } from './change.js';
import type { CompiledRule, RuleVars } from './compile.js';
import { knownTrue, type Facts } from './fold.js';
import { EvaluationStopped } from './stopped.js';

export interface RuleContext extends ChangeContext {
  /** the time rules compare with (`now`) */
  now: Date;
  /** --allow RULE=REASON (and a saved plan's): these rules' denials do not stop an apply */
  allow?: Allowance[];
  /** where an address's document is, for annotations */
  locate?: Locate;
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

/** A rule's match admits changes of this group. */
const admits = (r: CompiledRule, f: Facts) =>
  (!r.kinds || r.kinds.has(f.kind)) &&
  (!r.actions || r.actions.has(f.action)) &&
  (!r.environments || r.environments.has(f.environment));

/** The rules to evaluate, by kind, action and whether `changed` is empty (0) or not (1). */
type Groups = Map<string, Map<string, CompiledRule[][]>>;

/**
 * The rules to evaluate on a change: those whose match admits it and whose expression is not true for every change
 * of its kind and action (fold.ts), worked out once per group of changes (a plan has a few dozen).
 */
function rulesFor(rules: readonly CompiledRule[], c: Change, environment: string, groups: Groups) {
  const changedEmpty = !c.diff?.length;
  let byAction = groups.get(c.kind);
  if (!byAction) groups.set(c.kind, (byAction = new Map()));
  let both = byAction.get(c.action);
  if (!both) byAction.set(c.action, (both = []));
  const at = changedEmpty ? 0 : 1;
  if (!both[at]) {
    const facts: Facts = { kind: c.kind, action: c.action, environment, changedEmpty };
    both[at] = rules.filter((r) => admits(r, facts) && !knownTrue(r.ast, facts));
  }
  return both[at];
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
  const groups: Groups = new Map();
  let turnAt = Date.now() + TURN_MS;
  const { changes } = plan;
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i];
    const now = Date.now();
    if (now > deadlineAt) throw deadlineError(i, changes.length);
    if (now > turnAt) {
      await nextTurn();
      turnAt = Date.now() + TURN_MS;
    }
    const todo = rulesFor(rules, c, ctx.environment, groups);
    if (!todo.length) continue;
    // Made once per change, and only for a change some rule must be evaluated on.
    const vars: RuleVars = { change: changeVariable(c, ctx), now: ctx.now };
    for (const r of todo) {
      let found: ReturnType<typeof verdict>;
      try {
        found = verdict(r, vars, deadlineAt);
      } catch {
        throw deadlineError(i, changes.length);
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
        ...where,
        ...(allow !== undefined ? { allowed: allow } : {}),
      });
    }
  }
  return { checked: rules.length, results, allowances: ctx.allow ?? [] };
}
