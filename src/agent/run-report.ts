// What one reconcile reports: to the log, the status page, the metrics and the notifications (events.ts).
import type { ErrorCode } from '../errors.js';
import type { ApplyResult, Plan } from '../types.js';
import type { RunResult } from './metrics.js';

export interface RunReport {
  result: RunResult;
  /** the commit planned (the last good one), if any */
  commit?: string;
  /** a new commit that failed its checks in this run */
  rejected?: string;
  /** the branch's tip as fetched in this run */
  tip?: string;
  refresh: 'full' | 'changed';
  /** whether this run might write: the operator's --auto-apply, unless the commit says agent.auto_apply: false */
  autoApply?: boolean;
  /** with --refresh changed: the documents not read (unchanged since the last apply: drift in them not checked) */
  notRead?: number;
  summary?: Plan['summary'];
  /** what the plan would change (create, update, release, ...), by address */
  changes?: { address: string; action: string }[];
  applied?: ApplyResult['summary'];
  /** what still differs from the commit after the run: the plan's changes less those applied */
  remaining?: number;
  /** applied changes that put back a resource changed outside tapedeck (the plan's drift) */
  corrected?: number;
  /** changes a change window holds back now (applied in the first run after it closes), by address */
  held?: { address: string; action: string; windows: string[]; next_allowed: string | null }[];
  /** applied changes that did not go through, by address */
  failures?: { address: string; outcome: string; error?: string; error_code?: ErrorCode }[];
  error?: string;
  /** the stable code of `error` (docs/errors.md), as the CLI's JSON output gives it */
  errorCode?: ErrorCode;
  /** the run's messages (document issues, platform failures), as `plan` would have printed them */
  details: string[];
  requests: { reads: number; writes: number; throttled: number };
  /** with a budget: the run's waits on it, and the rate it last held (Infinity: nothing limited it) */
  budget?: { waited_ms: number; round_trips: number; share_rps: number };
}

/** Where a reconcile stands between runs: the last good commit, and the last rejected one (not checked again). */
export interface Commits {
  good?: string;
  rejected?: string;
}
