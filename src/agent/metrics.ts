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

export class AgentMetrics {
  readonly registry = new Registry();
  private readonly runs = new Counter({
    name: 'tapedeck_agent_runs_total',
    help: 'Reconcile runs by result: success, failed (platform or state), invalid (a commit that failed its checks)',
    labelNames: ['result'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'tapedeck_agent_run_duration_seconds',
    help: 'Duration of reconcile runs',
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });
  private readonly lastSuccess = new Gauge({
    name: 'tapedeck_agent_last_success_timestamp_seconds',
    help: 'When the last successful run ended (Unix time)',
    registers: [this.registry],
  });
  private readonly syncInfo = new Gauge({
    name: 'tapedeck_agent_sync_info',
    help: 'Always 1, on one series: the commit reconciled, the branch tip, and status synced, out_of_sync, rejected (the tip failed its checks; until a newer commit is applied) or failed',
    labelNames: ['commit', 'tip', 'status'],
    registers: [this.registry],
  });
  private readonly drifted = new Gauge({
    name: 'tapedeck_agent_resources_drifted',
    help: 'Resources that differ from the repository after the last run (with --auto-apply, what it applied is not counted)',
    registers: [this.registry],
  });
  private readonly corrected = new Counter({
    name: 'tapedeck_agent_corrections_total',
    help: 'Resources changed outside tapedeck (drift found by a full run) that an apply put back',
    registers: [this.registry],
  });
  private readonly applied = new Counter({
    name: 'tapedeck_agent_changes_applied_total',
    help: 'Changes applied to the platform',
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: 'tapedeck_agent_requests_total',
    help: 'Requests sent to the platform, by kind (read, write)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly throttled = new Counter({
    name: 'tapedeck_agent_throttled_requests_total',
    help: 'Requests the platform refused with 429',
    registers: [this.registry],
  });
  private readonly budgetShare = new Gauge({
    name: 'tapedeck_agent_budget_share_requests_per_second',
    help: "The requests per second the last run held of the fleet's API budget (+Inf: nothing limited it; 0 without a budget)",
    registers: [this.registry],
  });
  private readonly budgetWait = new Counter({
    name: 'tapedeck_agent_budget_wait_seconds_total',
    help: "Time runs waited on the fleet's API budget before sending a request",
    registers: [this.registry],
  });
  private readonly lockHeld = new Gauge({
    name: 'tapedeck_agent_lock_held',
    help: '1 when this agent holds the state lock (the one that reconciles), else 0',
    registers: [this.registry],
  });

  private readonly heldChanges = new Gauge({
    name: 'tapedeck_agent_changes_held',
    help: 'Changes a change window holds back after the last run (applied in the first run after it closes)',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'tapedeck_build_info',
      help: 'Always 1: the version of tapedeck running',
      labelNames: ['version'],
      registers: [this.registry],
    }).set({ version: tapedeckVersion() }, 1);
    // Every series exists from the start: a dashboard or alert sees 0, not "no data", before the first failure.
    for (const result of ['success', 'failed', 'invalid']) this.runs.inc({ result }, 0);
    for (const kind of ['read', 'write']) this.requests.inc({ kind }, 0);
    this.lockHeld.set(0);
    this.heldChanges.set(0);
  }

  run(result: RunResult, seconds: number): void {
    this.runs.inc({ result });
    this.duration.observe(seconds);
    if (result === 'success') this.lastSuccess.set(Date.now() / 1000);
  }

  /** After a run that planned: what still differs, and the drifted resources its apply put back. */
  planned(drifted: number, corrected: number): void {
    this.drifted.set(drifted);
    this.corrected.inc(corrected);
  }

  /** One series at a time: the last one replaces the one before (a commit label that moved on is gone). */
  sync(s: Sync): void {
    this.syncInfo.reset();
    this.syncInfo.set({ commit: s.commit ?? '', tip: s.tip ?? '', status: s.status }, 1);
  }

  sent(counts: { reads: number; writes: number; throttled: number }, applied: number): void {
    this.requests.inc({ kind: 'read' }, counts.reads);
    this.requests.inc({ kind: 'write' }, counts.writes);
    this.throttled.inc(counts.throttled);
    this.applied.inc(applied);
  }

  /** A run's part of the fleet's budget (budget/gate.ts): the rate it last held, and how long it waited on it. */
  budgeted(b: { waited_ms: number; share_rps: number }): void {
    this.budgetShare.set(b.share_rps);
    this.budgetWait.inc(b.waited_ms / 1000);
  }

  held(changes: number): void {
    this.heldChanges.set(changes);
  }

  leader(held: boolean): void {
    this.lockHeld.set(held ? 1 : 0);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
