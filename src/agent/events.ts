// What a run tells the notification URLs: drift found (report mode), changes applied, a commit rejected, a failure.
// A state that stays the same (the same drift, the same failure) is told once, not at every interval.
import type { Sync } from './metrics.js';
import type { AgentEvent } from './notify.js';
import type { Commits, RunReport } from './run-report.js';

const short = (c?: string) => c?.slice(0, 12);
export const counted = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const listed = (changes: { address: string; action: string }[]) =>
  `${changes
    .slice(0, 10)
    .map((c) => `${c.action} ${c.address}`)
    .join(', ')}${changes.length > 10 ? `, and ${changes.length - 10} more` : ''}`;

/**
 * Where the branch stands after a run. A tip that failed its checks is `rejected` for as long as it is the tip,
 * whatever the runs that reconcile the last good commit find (a run of the old commit succeeding must not clear the
 * alert while the branch stays unapplied); then a failed run, then anything still differing, else synced.
 */
export function syncOf(r: RunReport, commits: Commits, lastTip?: string): Sync {
  const tip = r.tip ?? lastTip;
  const at = { commit: commits.good, tip };
  if (tip && tip === commits.rejected) return { status: 'rejected', ...at };
  if (r.result === 'failed') return { status: 'failed', ...at };
  if (r.result === 'invalid' || (r.remaining ?? 0) > 0) return { status: 'out_of_sync', ...at };
  return { status: 'synced', ...at };
}

/** `told` remembers what was last told (the drift's and the failure's fingerprints), across runs; `named`: how the
 *  text names what was reconciled (the environment; with several configurations, the configuration and it). */
export function notifications(
  r: RunReport,
  environment: string,
  told: { drift: string; failure: string; held: string },
  sync?: Sync,
  named = environment,
): AgentEvent[] {
  const base = { environment, commit: r.commit, ...(sync ? { sync_status: sync.status, tip: sync.tip } : {}) };
  const events: AgentEvent[] = [];
  events.push(...heldEvent(r, environment, told, named));
  if (r.result === 'invalid') {
    if (r.error !== told.failure)
      events.push({
        ...base,
        event: 'invalid',
        rejected_commit: r.rejected,
        error: r.error,
        error_code: r.errorCode,
        text: `tapedeck ${named}: ${r.error}`,
      });
    told.failure = r.error ?? '';
    return events;
  }
  events.push(...changesEvent(r, base, told, named));
  if (r.result === 'failed') {
    if (r.error !== told.failure)
      events.push({
        ...base,
        event: 'failed',
        error: r.error,
        error_code: r.errorCode,
        failures: r.failures,
        text: `tapedeck ${named}: the run failed: ${r.error}`,
      });
    told.failure = r.error ?? '';
  } else {
    told.failure = '';
  }
  return events;
}

type Base = { environment: string; commit: string | undefined; sync_status?: Sync['status']; tip?: string };

/** What the run changed (applied) or found different (drift, told once for the same changes at the same commit). */
function changesEvent(r: RunReport, base: Base, told: { drift: string }, named: string): AgentEvent[] {
  if (r.applied && r.applied.applied > 0) {
    told.drift = '';
    return [
      {
        ...base,
        event: 'applied',
        summary: r.applied,
        text:
          `tapedeck ${named}: applied ${counted(r.applied.applied, 'change')} from commit ${short(r.commit)}: ` +
          listed(r.changes ?? []),
      },
    ];
  }
  if (r.changes?.length && !r.applied) {
    const fingerprint = `${r.commit} ${listed(r.changes)}`;
    const n = r.changes.length;
    const toldBefore = told.drift;
    told.drift = fingerprint;
    if (fingerprint === toldBefore) return [];
    return [
      {
        ...base,
        event: 'drift',
        summary: r.summary,
        changes: r.changes.slice(0, 100),
        text:
          `tapedeck ${named}: ${counted(n, 'resource')} ${n === 1 ? 'differs' : 'differ'} ` +
          `from commit ${short(r.commit)} (not applied: the agent only reports): ${listed(r.changes)}`,
      },
    ];
  }
  if (r.summary) told.drift = '';
  return [];
}

/** Changes a window holds back: told once for the same set, again when it changes; nothing when none is held. */
function heldEvent(r: RunReport, environment: string, told: { held: string }, named: string): AgentEvent[] {
  const held = r.held ?? [];
  const fingerprint = held.map((h) => `${h.action} ${h.address} ${h.windows.join()}`).join('; ');
  if (fingerprint === told.held) return [];
  told.held = fingerprint;
  if (!held.length) return [];
  const windows = [...new Set(held.flatMap((h) => h.windows))].join(', ');
  const next = held
    .map((h) => h.next_allowed)
    .filter((t): t is string => !!t)
    .sort()[0];
  return [
    {
      environment,
      commit: r.commit,
      event: 'held',
      held: held.slice(0, 100),
      text:
        `tapedeck ${named}: ${counted(held.length, 'change')} held by change window${windows.includes(',') ? 's' : ''} ${windows}` +
        `${next ? ` until ${next}` : ''} (applied in the first run after): ${listed(held)}`,
    },
  ];
}
