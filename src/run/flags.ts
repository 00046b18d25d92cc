// The flags every command that reads DIR takes, as commander hands them over (strings until options.ts checks them).
import type { BudgetFlags } from '../budget/settings.js';

export interface CommonFlags extends BudgetFlags {
  baseUrl?: string;
  tokenFile?: string;
  env?: string;
  state?: string;
  concurrency?: string;
  maxRps?: string;
  timeout?: string;
  retries?: string;
  retryDeadline?: string;
  deadline?: string;
  insecureHttp?: boolean;
  debug?: boolean;
  json?: boolean;
  format?: string;
  quiet?: boolean;
  var?: string[];
  varFile?: string[];
  recreateMissing?: boolean;
  /** plan/apply: only the documents these address patterns match, and what they reference */
  target?: string[];
  /** plan/apply: RULE=REASON, a guardrail's denial let through */
  allow?: string[];
  /** plan/apply: files of RULE=REASON lines (a reviewed list of allowances) */
  allowFile?: string[];
  /** plan/apply: read every document (full), or only those changed since the last apply */
  refresh?: string;
  /** plan/apply: NAME=REASON, a change window's hold lifted */
  overrideWindow?: string[];
  /** plan/apply: the time the windows and the rules' `now` are checked for (RFC 3339), instead of the clock */
  now?: string;
  /** apply: write nothing when a window holds any change (default: apply what no window holds) */
  allOrNothing?: boolean;
  /** the agent: the only environment variables documents may read (`${env.NAME}`); undefined (the CLI): any */
  documentEnv?: string[];
}
