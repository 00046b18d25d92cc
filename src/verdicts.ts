// The verdicts a plan carries beside its changes: the guardrail rules' (src/rules/) and the change windows'
// (src/windows/). Types only; re-exported by types.ts, the shared vocabulary.

/** A guardrail rule's finding on one change: its expression was false (failed), or could not be evaluated (error). */
export interface RuleFinding {
  rule: string;
  severity: 'deny' | 'warn';
  address: string;
  action: string;
  outcome: 'failed' | 'error';
  message: string;
  /** where the change's document is (relative to the working directory), for annotations; absent for a release */
  file?: string;
  line?: number;
  /** the reason given with --allow RULE=REASON: this denial does not stop apply */
  allowed?: string;
}

/** Where a change's document is (relative to the working directory; `line` where known), for a verdict's
 *  annotations; undefined for a change no document declares (a release). */
export type Locate = (address: string) => { file: string; line?: number } | undefined;

/** `--allow RULE=REASON`: a denial of RULE let through, and why. */
export interface Allowance {
  rule: string;
  reason: string;
}

/** The guardrails' verdict on a plan: how many rules were checked, what failed, what was allowed. */
export interface RulesReport {
  checked: number;
  results: RuleFinding[];
  allowances: Allowance[];
}

/** --override-window NAME=REASON: a window's hold lifted, with the reason a reviewer reads. */
export interface WindowOverride {
  window: string;
  reason: string;
}

/** Why one window holds one change back. */
export interface WindowFinding {
  window: string;
  kind: 'deny' | 'allow';
  reason: string;
  /** when this window stops holding it (RFC 3339), null where that is not known now (a live status) */
  until: string | null;
  /** the event that makes a `during: live_events` window hold it */
  event?: string;
  /** the reason given with --override-window: this window does not hold it */
  overridden?: string;
}

/** The change windows' verdict on a plan's writes at one instant (src/windows/evaluate.ts). */
export interface WindowsReport {
  checked_at: string;
  /** how many windows were checked */
  checked: number;
  /** every write some window holds, or held before an override */
  changes: Array<{
    address: string;
    action: string;
    held: boolean;
    next_allowed: string | null;
    windows: WindowFinding[];
    /** where the change's document is (relative to the working directory), for annotations; absent for a release */
    file?: string;
    line?: number;
  }>;
  overrides: WindowOverride[];
}
