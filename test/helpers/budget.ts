// A lease's ask for the budget's unit tests (src/budget/allocate.ts), a plan of weight 1 asking all it can get.
import type { LeaseAsk } from '../../src/budget/allocate.js';

export const leaseAsk = (id: string, extra: Partial<LeaseAsk> = {}): LeaseAsk => ({
  id,
  host: 'h',
  pid: 1,
  role: 'plan',
  configuration: 'c',
  environment: 'e',
  weight: 1,
  want: null,
  used: 0,
  waited_ms: 0,
  ...extra,
});
