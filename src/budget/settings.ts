// The run's budget, from the environment's `budget:` in the project file and the flags that override it per run
// (--budget-max-rps, --budget-share). --max-rps is not one of them: it stays this process's own cap, beneath it.
import { UserError } from '../errors.js';
import { DEFAULT_WEIGHTS, type Role } from './allocate.js';
import type { BudgetSection } from '../project/project.js';

export type { Role } from './allocate.js';

export interface BudgetSettings {
  max_rps?: number;
  share?: number;
  /** this run's weight in the fleet (its role's priority) */
  weight: number;
  /** every role's weight, as configured or by default */
  priority: Record<Role, number>;
  role: Role;
}

export interface BudgetFlags {
  budgetMaxRps?: string;
  budgetShare?: string;
}

function flagNumber(name: string, raw: string, test: (n: number) => boolean, what: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !test(n))
    throw new UserError(`${name} must be ${what}, not ${JSON.stringify(raw)}`, { code: 'E_USAGE' });
  return n;
}

/** The run's budget, or undefined when neither the environment nor a flag gives one. */
export function budgetSettings(
  section: BudgetSection | undefined,
  flags: BudgetFlags,
  role: Role,
): BudgetSettings | undefined {
  const max_rps =
    flags.budgetMaxRps !== undefined
      ? flagNumber(
          '--budget-max-rps',
          flags.budgetMaxRps,
          (n) => Number.isInteger(n) && n >= 1,
          'a whole number from 1',
        )
      : section?.max_rps;
  const share =
    flags.budgetShare !== undefined
      ? flagNumber('--budget-share', flags.budgetShare, (n) => n > 0 && n <= 1, 'a fraction above 0, at most 1')
      : section?.share;
  if (max_rps === undefined && share === undefined) return undefined;
  const priority = { ...DEFAULT_WEIGHTS, ...section?.priority };
  const limits = { ...(max_rps !== undefined ? { max_rps } : {}), ...(share !== undefined ? { share } : {}) };
  return { ...limits, weight: priority[role], priority, role };
}
