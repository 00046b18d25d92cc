// The guardrails in plan and apply: every rule checked on the plan as shown, the verdict made part of the plan, and
// the denials that stop `plan --detailed-exitcode` and `apply`.
import { UserError } from '../errors.js';
import { denials } from '../rules/allow.js';
import { checkRules } from '../rules/check.js';
import type { State } from '../state/state.js';
import type { Allowance, Document, Locate, Plan } from '../types.js';
import { nearestPos } from '../validate/locate.js';
import type { Configuration } from './check.js';
import type { RunOptions } from './options.js';

/** The rules' verdict on `shown` (sensitive values masked), recorded in both plans; none without rules (a saved
 *  plan's findings are replaced: its rules may have changed since). */
export async function guardPlan(
  plans: { plan: Plan; shown: Plan; locate: Locate },
  config: Configuration,
  opts: Pick<RunOptions, 'envName' | 'now' | 'clock' | 'runDeadlineAt' | 'runClock' | 'registry'>,
  state: State,
  allow: Allowance[],
): Promise<void> {
  if (!config.rules.length) {
    delete plans.plan.rules;
    delete plans.shown.rules;
    return;
  }
  const report = await checkRules(plans.shown, config.rules, {
    environment: opts.envName,
    now: opts.now ?? opts.clock(),
    // The rules' budget is real time (epoch ms): the run's deadline, from its own clock.
    deadlineAt: Date.now() + (opts.runDeadlineAt - opts.runClock.ms()),
    allow,
    schemaOf: (kind) => opts.registry.get(kind)?.schema,
    lastApplied: (address) => state.entry(address)?.fields,
    locate: plans.locate,
  });
  plans.plan.rules = report;
  plans.shown.rules = report;
}

/** Where a change's document is (its file, and the line it starts on), for annotations; undefined for a change no
 *  document declares (a release). The map is built only when a finding needs a place (a large plan usually has none). */
export function documentLocator(docs: readonly Document[]): Locate {
  let byAddress: Map<string, Document> | undefined;
  return (address) => {
    byAddress ??= new Map(docs.map((d) => [d.address, d]));
    const d = byAddress.get(address);
    const line = d && nearestPos(d.source, '')?.line;
    return d && { file: d.source.file, ...(line ? { line } : {}) };
  };
}

/** Why the plan may not be applied: one line per denial not allowed; empty when nothing is denied. */
export function denialLines(plan: Plan): string[] {
  const denied = denials(plan.rules);
  if (!denied.length) return [];
  const rules = [...new Set(denied.map((d) => d.rule))];
  return [
    ...denied.map(
      (d) =>
        `error: rule ${d.rule} denies ${d.address} (${d.action}): ${d.outcome === 'error' ? 'error: ' : ''}${d.message}`,
    ),
    `error: ${denied.length} change${denied.length === 1 ? '' : 's'} denied by guardrail rules; nothing may be written. Fix the documents or the rules, or let them through with ${rules.map((r) => `--allow ${r}=REASON`).join(' ')}`,
  ];
}

/** Nothing is written for a plan with a denial no allowance covers: one line naming each. */
export function refuseDenied(plan: Plan): void {
  const denied = deniedError(plan);
  if (denied) throw denied;
}

/** The denials no allowance covers, as one error; undefined when there are none. */
export function deniedError(plan: Plan): UserError | undefined {
  const denied = denials(plan.rules);
  if (!denied.length) return undefined;
  const each = denied.map((d) => `rule ${d.rule} denies ${d.address} (${d.action})`).join('; ');
  return new UserError(
    `${denied.length} change${denied.length === 1 ? '' : 's'} denied by guardrail rules, nothing was written: ${each} (--allow RULE=REASON lets a rule's denials through)`,
    { code: 'E_DENIED' },
  );
}
