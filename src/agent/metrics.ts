// The agent's metrics, in the Prometheus text format through prom-client (the format's reference implementation for
// Node: escaping, histograms and the content type are its job, not ours). A registry of its own, no global one.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type RunResult = 'success' | 'failed' | 'invalid';

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
  private readonly drifted = new Gauge({
    name: 'tapedeck_agent_resources_drifted',
    help: 'Resources the last plan found different from the repository (creates, updates, releases, moves)',
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

  planned(drifted: number): void {
    this.drifted.set(drifted);
  }

  sent(counts: { reads: number; writes: number; throttled: number }, applied: number): void {
    this.requests.inc({ kind: 'read' }, counts.reads);
    this.requests.inc({ kind: 'write' }, counts.writes);
    this.throttled.inc(counts.throttled);
    this.applied.inc(applied);
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
