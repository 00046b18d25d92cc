// A virtual clock for tests that wait on rate limits, retries and latency: the CLI (io.clock) and the emulator
// (its clock option) share it, so a one-second rate bucket or a Retry-After costs no real second. Time stands still
// while anything happens and jumps to the next timer when nothing does: when, for several turns of the event loop in
// a row, no one has read the clock or set a timer, and no file, DNS or connect request is pending. A request over
// loopback between the CLI and the emulator in this process reads the clock on arrival and on its answer, a few
// turns apart, so time never jumps while one is on its way; a jump is what the waits would have waited for.
import { afterAll } from 'vitest';
import type { Clock } from '../../src/types.js';

/** the turns of the event loop with nothing happening after which time moves on */
const QUIET_TURNS = 8;
/** pending operations of these kinds are work in progress (a state file being written, a socket connecting) */
const BUSY = /^(FSReq|GetAddrInfoReqWrap|GetNameInfoReqWrap|TCPConnectWrap|PipeConnectWrap|ShutdownWrap|WriteWrap)/;

/** the wall time virtual clocks start from (when the test file loaded) */
const START = Date.now();

interface Timer {
  due: number;
  seq: number;
  fire: () => void;
  background: boolean;
}

export class VirtualClock implements Clock {
  private t = 0;
  private seq = 0;
  private readonly timers: Timer[] = [];
  /** moves on at every use of the clock: the sign that something is happening */
  private activity = 0;
  private spinning = false;
  /** the virtual milliseconds jumped so far (what the waits would have cost) */
  skipped = 0;

  /** the wall time: the real one when the clock was made, moved on by the same jumps */
  now(): Date {
    return new Date(START + this.ms());
  }

  ms(): number {
    this.activity++;
    return this.t;
  }

  timer(ms: number): { done: Promise<void>; cancel(): void } {
    let cancel!: () => void;
    const done = new Promise<void>((resolve) => {
      const drop = this.after(ms, resolve);
      cancel = () => {
        drop();
        resolve();
      };
    });
    return { done, cancel };
  }

  after(ms: number, fire: () => void, background = false): () => void {
    this.activity++;
    const timer = { due: this.t + Math.max(0, ms), seq: this.seq++, fire, background };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
    this.spin();
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  /** Turns of the event loop, watching for quiet, while a timer that keeps the process alive is pending. */
  private spin(): void {
    if (this.spinning) return;
    this.spinning = true;
    let quiet = 0;
    let seen = this.activity;
    const turn = () => {
      if (!this.timers.some((t) => !t.background)) {
        this.spinning = false; // background timers alone keep nothing alive, as unref'd timers do not
        return;
      }
      const busy = seen !== this.activity || process.getActiveResourcesInfo().some((r) => BUSY.test(r));
      seen = this.activity;
      quiet = busy ? 0 : quiet + 1;
      if (quiet >= QUIET_TURNS) {
        quiet = 0;
        this.fireNext();
        seen = this.activity;
      }
      setImmediate(turn);
    };
    setImmediate(turn);
  }

  /** Time jumps to the soonest timer, and every timer due then fires, in the order they were set. */
  private fireNext(): void {
    const due = this.timers[0].due;
    if (due > this.t) {
      this.skipped += due - this.t;
      this.t = due;
    }
    while (this.timers.length && this.timers[0].due <= this.t) this.timers.shift()!.fire();
  }
}

let shared: VirtualClock | undefined;

/** The clock runCli and emulator() use when a test gives none: the file's virtual one, after useVirtualClock(). */
export const fileClock = (): Clock | undefined => shared;

/**
 * Every CLI run and emulator of this test file (runCli, emulator()) shares one virtual clock from here on, so its
 * retry waits, Retry-After pauses and rate buckets cost no real time. Call it once, at the top of the file.
 */
export function useVirtualClock(): VirtualClock {
  const clock = new VirtualClock();
  shared = clock;
  // The file's alone: a worker that runs the next file in the same modules (isolate: false) starts it on the real one.
  afterAll(() => {
    if (shared === clock) shared = undefined;
  });
  return clock;
}
