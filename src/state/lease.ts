// The lock as a lease: a run may send a write only within the bound of a confirmation that the lock is still its
// own, asked of the server with a deadline of its own. A confirmation that does not answer in time counts as the
// lock lost: a silent connection (a network cut, a failover to a host that is gone) cannot be told from one whose
// server has ended the session and freed the lock for another run. Once lost, the lease stays lost; taking the lock
// again is a new lease. Pure but for the clock, which is injected (the tests' is their own).
import { UserError } from '../errors.js';
import { systemClock } from '../util/clock.js';

/** How long, at most, from the sending of a confirmation that answered "held" to the sending of a write. */
export const LOCK_BOUND_MS = 3000;
/** The environment variable that sets another bound (milliseconds), for a slower network or a test. */
export const LOCK_BOUND_ENV = 'TAPEDECK_LOCK_BOUND_MS';

export interface LeaseTimes {
  /** no write is sent later than this after the confirmation it rests on was sent */
  boundMs: number;
  /** a confirmation older than this is asked again before the next write (a third of the bound) */
  renewMs: number;
  /** a confirmation not answered within this is a lost lock (two thirds of the bound) */
  deadlineMs: number;
}

export function leaseTimes(boundMs = LOCK_BOUND_MS): LeaseTimes {
  return { boundMs, renewMs: Math.floor(boundMs / 3), deadlineMs: Math.floor((boundMs * 2) / 3) };
}

/** The bound from the environment (TAPEDECK_LOCK_BOUND_MS), or the default; a value that is not one is refused. */
export function lockBoundOf(env: NodeJS.ProcessEnv): number {
  const raw = env[LOCK_BOUND_ENV];
  if (raw === undefined || raw === '') return LOCK_BOUND_MS;
  if (!/^\d+$/.test(raw) || Number(raw) < 30 || Number(raw) > 600_000)
    throw new UserError(
      `${LOCK_BOUND_ENV} must be a whole number of milliseconds from 30 to 600000, not ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}

export interface LeaseClock {
  now(): number;
  /** resolves after `ms`; `cancel` lets a confirmation that answered in time drop its timer */
  after(ms: number): { done: Promise<void>; cancel(): void };
}

/** The system's clock (util/clock.ts), monotonic: a lease measures only how long since it was confirmed. */
export const realClock: LeaseClock = { now: () => systemClock.ms(), after: (ms) => systemClock.timer(ms) };

/** What a confirmation found: held, or why not (a message; the lease adds nothing to it). */
export type Asked = { held: true } | { held: false; why: string };

export class LockLease {
  /** when the last confirmation that answered "held" was sent (the server answered some time after) */
  private confirmedAt: number;
  private asking: Promise<void> | undefined;
  private lostWhy: string | undefined;
  private readonly listeners: ((why: string) => void)[] = [];

  /**
   * `takenAt`: when the request that took the lock was sent. `ask` asks the server; `name` names the state in
   * messages; `onLost` is told once, the moment the lease is lost (to cut the connection that may be silent).
   */
  constructor(
    private readonly ask: () => Promise<Asked>,
    private readonly name: string,
    readonly times: LeaseTimes,
    takenAt: number,
    private readonly clock: LeaseClock = realClock,
  ) {
    this.confirmedAt = takenAt;
  }

  get lost(): string | undefined {
    return this.lostWhy;
  }

  /** `listener` is told why, once, when the lease is lost (at once if it is already). */
  onLost(listener: (why: string) => void): void {
    if (this.lostWhy) listener(this.lostWhy);
    else this.listeners.push(listener);
  }

  /** The lease ends: nothing more is confirmed. */
  lose(why: string): void {
    if (this.lostWhy) return;
    this.lostWhy = why;
    for (const l of this.listeners.splice(0)) l(why);
  }

  /**
   * Returns once a write may be sent: the last confirmation is younger than the renewal time, or a new one has
   * answered "held" within its deadline. Throws (E_LOCKED, saying why) once the lease is lost.
   */
  async confirm(): Promise<void> {
    if (this.age() < this.times.renewMs) return this.check();
    // One confirmation at a time: every write waiting meanwhile rests on the same one.
    await (this.asking ??= this.askOnce().finally(() => {
      this.asking = undefined;
    }));
    // A process that stalled past the bound after the answer (a long pause of the event loop) asks again.
    if (!this.lostWhy && this.age() >= this.times.boundMs) return this.confirm();
    return this.check();
  }

  private age(): number {
    return this.clock.now() - this.confirmedAt;
  }

  private check(): void {
    if (this.lostWhy) throw new UserError(this.lostWhy, { code: 'E_LOCKED' });
  }

  private async askOnce(): Promise<void> {
    if (this.lostWhy) return;
    const sent = this.clock.now();
    const timer = this.clock.after(this.times.deadlineMs);
    const answer = await Promise.race([
      this.ask().catch((e: unknown): Asked => ({ held: false, why: String((e as Error)?.message ?? e) })),
      timer.done.then(() => 'late' as const),
    ]);
    timer.cancel();
    if (answer === 'late')
      return this.lose(
        `the lock on the state ${this.name} was not confirmed within ${this.times.deadlineMs} ms (the database did not answer): another run may hold the lock now`,
      );
    if (!answer.held) return this.lose(answer.why);
    this.confirmedAt = Math.max(this.confirmedAt, sent);
  }
}
