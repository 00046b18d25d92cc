// One configuration's loop: hold its state's lock (or stand by until the holder goes), reconcile every interval or
// when a push changes it, and tell: the log, the metrics, the status, the notifications. One run at a time; a stop
// lets the write in flight finish, then the state is saved and the lock released. An agent following several
// configurations runs one of these for each (fleet.ts): then `assigned` says whether this replica is the one to
// reconcile it now (shares.ts), and `slots` bounds the runs at once (--parallel).
import { errorLine, UserError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import type { Log } from './log.js';
import type { ConfigMetrics, Sync } from './metrics.js';
import type { Notifier } from './notify.js';
import { heldUntil, reconcile, type Commits, type RunInput, type RunReport } from './reconcile.js';
import { systemClock } from '../util/clock.js';
import type { AgentSettings } from './settings.js';
import { notifications, syncOf } from './events.js';
import { configurationStatus, type LastRun } from './agent-status.js';
import type { Slots } from './slots.js';

export interface AgentParts {
  settings: AgentSettings;
  /** the configuration's directory in the repository: its name in the fleet's status, metrics and notifications */
  configuration: string;
  environment: string;
  /** the state as a user names it (a file, or the database URL with its password masked) */
  stateShown: string;
  /** a file state cannot be shared: a second agent is refused at start instead of standing by */
  sharedState: boolean;
  openBackend: () => Promise<StateBackend>;
  run: Omit<RunInput, 'backend' | 'commits' | 'refresh' | 'stopping' | 'autoApply'>;
  log: Log;
  metrics: ConfigMetrics;
  notifier: Notifier;
  mask: (t: string) => string;
  /** how often a leader on a shared state confirms its lock between writes (a third of the lock's bound) */
  lockCheckMs?: number;
  /** several configurations: whether this replica reconciles this one now (absent: always) */
  assigned?: () => boolean;
  /** several configurations: a run waits for one of these (--parallel) */
  slots?: Slots;
  /** several configurations: the notifications' text names the configuration, and the state's connection for
   *  reads and writes is closed between runs (the lock's stays), so 20 configurations do not hold 40 connections */
  fleet?: boolean;
}

type Role = 'starting' | 'leader' | 'standby' | 'stopping';

export class Agent {
  private backend: StateBackend | undefined;
  role: Role = 'starting';
  private stopping = false;
  private running = false;
  private again = false;
  private wake: (() => void) | undefined;
  private runs = 0;
  readonly commits: Commits = {};
  private last: LastRun | undefined;
  private lastSuccessAt: string | undefined;
  private lastError: { at: string; code?: string; message: string } | undefined;
  private nextRunAt: string | undefined;
  private sync: Sync | undefined;
  /** the runs this replica made of it (the first of each spell of holding it is a full one) */
  private spellRuns = 0;
  private readonly told = { drift: '', failure: '', held: '' };
  /** the leader's own confirmations of its lock, between runs too: /status never says leader without the lock */
  private watch: NodeJS.Timeout | undefined;

  constructor(private readonly p: AgentParts) {}

  get configuration(): string {
    return this.p.configuration;
  }

  /** on a state several agents can share (a database): one that is held elsewhere is waited for, not an error */
  get shared(): boolean {
    return this.p.sharedState;
  }

  get ready(): boolean {
    return (
      this.role === 'standby' ||
      (this.role === 'leader' && this.runs > 0) ||
      (this.role === 'stopping' && this.runs > 0)
    );
  }

  /**
   * Takes the lock: true when this agent is the one that reconciles. A leader confirms it still holds it (the
   * lease's bound: state/lease.ts); one that cannot has stepped down and takes it afresh, or stands by. A file state
   * held elsewhere is an error.
   */
  async lead(): Promise<boolean> {
    if (this.role === 'leader' && (await this.confirmed())) return true;
    if (this.backend) await this.drop();
    try {
      this.backend = await this.p.openBackend();
      await this.backend.lock(0);
    } catch (e) {
      if (!(e instanceof UserError) || !this.p.sharedState) throw e;
      // A connection that failed may be broken for good: the next try opens a new one.
      await this.drop();
      if (this.role !== 'standby')
        this.p.log('info', 'standing by: another agent holds the state lock', { reason: e.message });
      this.role = 'standby';
      return false;
    }
    this.p.log('info', 'holding the state lock: this agent reconciles', { state: this.p.stateShown });
    this.role = 'leader';
    if (this.p.fleet) this.spellRuns = 0;
    this.p.metrics.leader(true);
    this.backend.onLockLost((why) => this.stepDown(why));
    if (this.p.sharedState) this.watchLock();
    return true;
  }

  /** Whether the lock is still this agent's; if not, it has stepped down. */
  private async confirmed(): Promise<boolean> {
    try {
      await this.backend!.checkLock();
      return true;
    } catch (e) {
      this.stepDown(errorLine(e));
      return false;
    }
  }

  private watchLock(): void {
    this.watch = setInterval(() => {
      if (this.role === 'leader' && this.backend) void this.confirmed();
    }, this.p.lockCheckMs ?? 1000);
    this.watch.unref();
  }

  /**
   * The moment the lock cannot be confirmed: a standby from now on (the write in flight is the last; apply sends
   * nothing more), and a leader again only once it has taken the lock afresh and planned again.
   */
  private stepDown(why: string): void {
    clearInterval(this.watch);
    if (this.role !== 'leader') return;
    this.role = 'standby';
    this.p.metrics.leader(false);
    this.p.log('warn', 'the state lock is lost: standing by until this agent takes it again', { reason: why });
  }

  private async drop(): Promise<void> {
    const backend = this.backend;
    this.backend = undefined;
    clearInterval(this.watch);
    if (this.role === 'leader') this.role = 'standby';
    this.p.metrics.leader(false);
    await backend?.close();
  }

  /** This replica no longer reconciles it (another's share now): the lock is released for the one that does. */
  private async yieldShare(): Promise<void> {
    if (this.role === 'leader') this.p.log('info', 'released: another replica reconciles this configuration now', {});
    await this.drop();
    this.role = 'standby';
  }

  /** A reconcile now (a verified push): after the current one if one is running. */
  trigger(): void {
    if (this.running) this.again = true;
    else this.wake?.();
  }

  stop(): void {
    this.stopping = true;
    this.wake?.();
  }

  private get clock() {
    return this.p.run.io.clock ?? systemClock;
  }

  private sleep(ms: number): Promise<void> {
    const clock = this.clock;
    this.nextRunAt = new Date(clock.now().getTime() + ms).toISOString();
    const timer = clock.timer(ms);
    this.wake = timer.cancel;
    return timer.done;
  }

  /** Until the next run: the interval, or less where a change window lets a held change go sooner. */
  private untilNextRun(): number {
    const interval = this.p.settings.intervalMs;
    const held = this.last && heldUntil(this.last);
    if (!held) return interval;
    return Math.max(0, Math.min(interval, held.getTime() - this.clock.now().getTime()));
  }

  /** Runs until stop(); the lock is released (the backend closed) before it returns. */
  async loop(): Promise<void> {
    try {
      while (!this.stopping) {
        if (!(this.p.assigned?.() ?? true)) await this.yieldShare();
        else if (await this.lead()) {
          this.running = true;
          try {
            await (this.p.slots ? this.p.slots.run(() => this.tick()) : this.tick());
          } finally {
            this.running = false;
          }
        }
        if (this.again && !this.stopping) {
          this.again = false;
          continue;
        }
        if (!this.stopping) await this.sleep(this.untilNextRun());
      }
    } finally {
      this.role = 'stopping';
      this.nextRunAt = undefined;
      await this.drop();
    }
  }

  private async tick(): Promise<void> {
    if (this.stopping || this.role !== 'leader') return;
    const started = Date.now();
    const n = this.spellRuns++;
    const refresh: RunReport['refresh'] = n % this.p.settings.fullEvery === 0 ? 'full' : 'changed';
    const report = await reconcile({
      ...this.p.run,
      backend: this.backend!,
      commits: this.commits,
      autoApply: this.p.settings.autoApply,
      refresh,
      stopping: () => this.stopping,
    });
    const finished = Date.now();
    this.runs++;
    this.last = {
      ...report,
      started_at: new Date(started).toISOString(),
      finished_at: new Date(finished).toISOString(),
      duration_ms: finished - started,
    };
    this.p.metrics.run(report.result, (finished - started) / 1000);
    if (report.summary) this.p.metrics.planned(report.remaining ?? 0, report.corrected ?? 0);
    this.p.metrics.held(report.held?.length ?? 0);
    this.sync = syncOf(report, this.commits, this.sync?.tip);
    this.p.metrics.sync(this.sync);
    this.p.metrics.sent(report.requests, report.applied?.applied ?? 0);
    if (report.budget) this.p.metrics.budgeted(report.budget);
    if (report.result === 'success') this.lastSuccessAt = this.last.finished_at;
    else this.lastError = { at: this.last.finished_at, code: report.errorCode, message: report.error ?? report.result };
    this.logRun(report, finished - started);
    const named = this.p.fleet ? `${this.p.configuration} ${this.p.environment}` : this.p.environment;
    for (const e of notifications(report, this.p.environment, this.told, this.sync, named))
      this.p.notifier.notify({ ...e, configuration: this.p.configuration });
    if (this.p.fleet) await this.backend?.rest?.();
    // A database connection that broke loses the lock with it: stand by, and take it again if it is free.
    if (report.result === 'failed' && this.role === 'leader' && this.backend && this.p.sharedState) {
      try {
        await this.backend.read();
      } catch {
        this.p.log('warn', 'the state database connection is lost: the lock is given up', {});
        await this.drop();
      }
    }
  }

  private logRun(r: RunReport, ms: number): void {
    const level = r.result === 'success' ? 'info' : r.result === 'invalid' ? 'warn' : 'error';
    const changes = r.changes?.slice(0, 20).map((c) => `${c.action} ${c.address}`);
    this.p.log(level, `run ${r.result}`, {
      run: this.runs,
      commit: r.commit?.slice(0, 12),
      rejected: r.rejected?.slice(0, 12),
      sync: this.sync?.status,
      refresh: r.refresh,
      not_read: r.notRead,
      duration_ms: ms,
      summary: r.summary,
      changes: changes?.length ? changes : undefined,
      applied: r.applied,
      error: r.error,
      error_code: r.errorCode,
    });
    for (const d of r.result === 'success' ? [] : r.details.slice(0, 20))
      this.p.log('debug', 'detail', { run: this.runs, line: d });
  }

  /** /status: where the agent stands; nothing secret (the repository without credentials, the state masked). */
  status(): Record<string, unknown> {
    return configurationStatus({
      ...this.p,
      role: this.role,
      commits: this.commits,
      sync: this.sync,
      runs: this.runs,
      last: this.last,
      lastSuccessAt: this.lastSuccessAt,
      lastError: this.lastError,
      nextRunAt: this.nextRunAt,
    });
  }
}
