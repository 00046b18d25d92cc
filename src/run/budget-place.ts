// Where a run's budget is kept and who it is in it, from its options: beside its state (budget/open.ts).
import { writerOf } from '../state/backend.js';
import type { BudgetPlace } from '../budget/open.js';
import type { Io } from '../types.js';
import type { BudgetPlaceInputs } from './inputs.js';

export function budgetPlace(opts: BudgetPlaceInputs, url: URL, io: Io): BudgetPlace {
  return {
    state: opts.state,
    origin: url.origin,
    configuration: opts.configuration,
    environment: opts.envName,
    writer: writerOf(io.env),
    timeoutMs: opts.timeoutMs,
  };
}
