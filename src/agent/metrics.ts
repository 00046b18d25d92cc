// The agent's metrics, in the Prometheus text format through prom-client (the format's reference implementation for
// Node: escaping, histograms and the content type are its job, not ours). A registry of its own, no global one, with
// prom-client's default process and runtime metrics (memory, CPU, event-loop lag, start time) in it.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { tapedeckVersion } from '../version.js';

export type RunResult = 'success' | 'failed' | 'invalid';

/**
 * Where the branch stands, as Argo CD and Flux say it: synced (the tip is applied and the platform matches it),
 * out_of_sync (the platform differs from the last good commit: drift, or changes not applied), rejected (the tip
 * failed its checks: it stays so until a newer commit is applied), failed (the last run could not plan or apply).
 */
export type SyncStatus = 'synced' | 'out_of_sync' | 'rejected' | 'failed';

export interface Sync {
  status: SyncStatus;
  /** the commit reconciled (the last good one), if any */
  commit?: string;
  /** the branch's tip as last fetched */
  tip?: string;
}

/** One configuration's series: what its runs report; its labels are fixed when it is made (AgentMetrics.of). */
export interface ConfigMetrics {
  run(result: RunResult, seconds: number): void;
  planned(drifted: number, corrected: number): void;
  sync(s: Sync): void;
  sent(counts: { reads: number; writes: number; throttled: number }, applied: number): void;
  held(changes: number): void;
  leader(held: boolean): void;
  /** a run's part of the fleet's API budget (budget/gate.ts): the rate it last held, and how long it waited on it */
  budgeted(b: { waited_ms: number; share_rps: number }): void;
}

type Labels = Record<string, string>;

/**
 * Following one configuration (a single --path), the series carry no configuration label, as they always did;
 * following several, each configuration's carry `configuration`: its directory in the repository, bounded by the
 * configurations found, never a value read from a document.
 */
function families(registry: Registry, per: string[]) {
  const registers = [registry];
  const counter = (name: string, help: string, more: string[] = []) =>
    new Counter({ name, help, labelNames: [...per, ...more], registers });
  const gauge = (name: string, help: string, more: string[] = []) =>
    new Gauge({ name, help, labelNames: [...per, ...more], registers });
  return {
    runs: counter(
      'tapedeck_agent_runs_total',
      'Reconcile runs by result: success, failed (platform or state), invalid (a commit that failed its checks)',
      ['result'],
    ),
    duration: new Histogram({
      name: 'tapedeck_agent_run_duration_seconds',
      help: 'Duration of reconcile runs',
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      labelNames: per,
      registers,
    }),
    lastSuccess: gauge(
      'tapedeck_agent_last_success_timestamp_seconds',
      'When the last successful run ended (Unix time)',
    ),
    syncInfo: gauge(
      'tapedeck_agent_sync_info',
      'Always 1, on one series: the commit reconciled, the branch tip, and status synced, out_of_sync, rejected (the tip failed its checks; until a newer commit is applied) or failed',
      ['commit', 'tip', 'status'],
    ),
    drifted: gauge(
      'tapedeck_agent_resources_drifted',
      'Resources that differ from the repository after the last run (with --auto-apply, what it applied is not counted)',
    ),
    corrected: counter(
      'tapedeck_agent_corrections_total',
      'Resources changed outside tapedeck (drift found by a full run) that an apply put back',
    ),
    applied: counter('tapedeck_agent_changes_applied_total', 'Changes applied to the platform'),
    requests: counter('tapedeck_agent_requests_total', 'Requests sent to the platform, by kind (read, write)', [
      'kind',
    ]),
    throttled: counter('tapedeck_agent_throttled_requests_total', 'Requests the platform refused with 429'),
    lockHeld: gauge(
      'tapedeck_agent_lock_held',
      '1 when this agent holds the state lock (the one that reconciles), else 0',
    ),
    budgetShare: gauge(
      'tapedeck_agent_budget_share_requests_per_second',
      "The requests per second the last run held of the fleet's API budget (+Inf: nothing limited it; 0 without a budget)",
    ),
    budgetWait: counter(
      'tapedeck_agent_budget_wait_seconds_total',
      "Time runs waited on the fleet's API budget before sending a request",
    ),
    heldChanges: gauge(
      'tapedeck_agent_changes_held',
      'Changes a change window holds back after the last run (applied in the first run after it closes)',
    ),
  };
}

export class AgentMetrics {
  readonly registry = new Registry();
  private readonly f: ReturnType<typeof families>;
  private readonly per: string[];

  /** `labelled`: the agent follows several configurations, each with its own series */
  constructor(private readonly labelled = false) {
    this.per = labelled ? ['configuration'] : [];
    this.f = families(this.registry, this.per);
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'tapedeck_build_info',
      help: 'Always 1: the version of tapedeck running',
      labelNames: ['version'],
      registers: [this.registry],
    }).set({ version: tapedeckVersion() }, 1);
  }

  /**
   * One configuration's series, each existing from the start: a dashboard or alert sees 0, not "no data", before
   * the first failure. `configuration`: its directory in the repository (ignored when the series are unlabelled).
   */
  of(configuration: string): ConfigMetrics {
    const at: Labels = this.labelled ? { configuration } : {};
    const f = this.f;
    for (const result of ['success', 'failed', 'invalid']) f.runs.inc({ ...at, result }, 0);
    for (const kind of ['read', 'write']) f.requests.inc({ ...at, kind }, 0);
    f.lockHeld.set(at, 0);
    f.heldChanges.set(at, 0);
    if (this.labelled) for (const c of [f.corrected, f.applied, f.throttled]) c.inc(at, 0);
    let synced: Labels | undefined;
    return {
      run(result, seconds) {
        f.runs.inc({ ...at, result });
        f.duration.observe(at, seconds);
        if (result === 'success') f.lastSuccess.set(at, Date.now() / 1000);
      },
      planned(drifted, corrected) {
        f.drifted.set(at, drifted);
        f.corrected.inc(at, corrected);
      },
      // One series at a time per configuration: the last replaces the one before (a commit that moved on is gone).
      sync(s) {
        if (synced) f.syncInfo.remove(synced);
        synced = { ...at, commit: s.commit ?? '', tip: s.tip ?? '', status: s.status };
        f.syncInfo.set(synced, 1);
      },
      sent(counts, applied) {
        f.requests.inc({ ...at, kind: 'read' }, counts.reads);
        f.requests.inc({ ...at, kind: 'write' }, counts.writes);
        f.throttled.inc(at, counts.throttled);
        f.applied.inc(at, applied);
      },
      held(changes) {
        f.heldChanges.set(at, changes);
      },
      leader(held) {
        f.lockHeld.set(at, held ? 1 : 0);
      },
      budgeted(b) {
        f.budgetShare.set(at, b.share_rps);
        f.budgetWait.inc(at, b.waited_ms / 1000);
      },
    };
  }

  /** A configuration no longer followed (its directory gone from the repository): its series go with it. */
  forget(configuration: string): void {
    if (!this.labelled) return;
    for (const m of Object.values(this.f)) m.remove({ configuration });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
