// This replica's place among the fleet's: the live replicas read from PostgreSQL every poll (postgres-replicas.ts),
// the shares computed from them and the configurations (shares.ts, the same answer on every replica), and the
// configurations whose share moved woken: one this replica now reconciles takes its lock, one it no longer does
// releases it. A replica that cannot read the list reconciles nothing until it can (it may be the one cut off).
import { errorLine } from '../errors.js';
import type { PgReplicas } from '../state/postgres-replicas.js';
import type { Clock } from '../types.js';
import { systemClock } from '../util/clock.js';
import type { Log } from './log.js';
import { shares } from './shares.js';

export class Membership {
  private live: string[] = [];
  private map = new Map<string, string>();
  private list: string[] = [];
  private stopped = false;
  private cancel: (() => void) | undefined;
  private failing = false;
  private mine = -1;

  constructor(
    private readonly replicas: Pick<PgReplicas, 'id' | 'live' | 'leave'>,
    private readonly log: Log,
    private readonly pollMs: number,
    /** the agent's clock (its schedule's): the polls wait on it */
    private readonly clock: Clock = systemClock,
  ) {}

  get id(): string {
    return this.replicas.id;
  }

  /** The configurations followed now (all replicas list the same ones at the same commit). */
  configurations(list: string[]): void {
    this.list = [...list];
    this.recompute();
  }

  private recompute(): void {
    this.map = shares(this.list, this.live);
    const mine = [...this.map.values()].filter((r) => r === this.id).length;
    if (mine !== this.mine)
      this.log('info', 'share of the configurations', {
        replica: this.id,
        replicas: this.live.length,
        configurations: this.list.length,
        share: mine,
      });
    this.mine = mine;
  }

  /** Reads the live replicas; a failure leaves none (this one reconciles nothing) and is logged once. */
  async refresh(): Promise<void> {
    try {
      this.live = await this.replicas.live();
      if (this.failing) this.log('info', 'the replicas are listed again', {});
      this.failing = false;
    } catch (e) {
      if (!this.failing)
        this.log('warn', 'cannot list the replicas: reconciling none until it can', { error: errorLine(e) });
      this.failing = true;
      this.live = [];
    }
    this.recompute();
  }

  /** Until stop(): the list read again every poll, then `changed` (the fleet wakes what moved). */
  async run(changed: () => void): Promise<void> {
    while (!this.stopped) {
      const wait = this.clock.timer(this.pollMs);
      this.cancel = wait.cancel;
      await wait.done;
      if (this.stopped) break;
      await this.refresh();
      changed();
    }
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  leave(): Promise<void> {
    return this.replicas.leave();
  }

  assigned(path: string): boolean {
    return this.map.get(path) === this.id;
  }

  owner(path: string): string | null {
    return this.map.get(path) ?? null;
  }

  /** Whether a configuration's loop must be woken: it is this replica's and not led here yet, or led and not. */
  moved(agent: { configuration: string; role: string }): boolean {
    return this.assigned(agent.configuration) !== (agent.role === 'leader');
  }

  status(): { id: string; live: number; share: number } {
    return { id: this.id, live: this.live.length, share: Math.max(0, this.mine) };
  }
}
