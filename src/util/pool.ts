import { setTimeout as sleep } from 'node:timers/promises';

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the items' order. */
export async function mapPool<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Groups addresses into waves: each wave depends only on earlier waves. Assumes no cycles (validated). */
export function waves<T>(items: readonly T[], keyOf: (t: T) => string, depsOf: (t: T) => readonly string[]): T[][] {
  // Most setups refer to nothing: one wave, without the sets below (this runs before the first request is sent).
  if (!items.some((t) => depsOf(t).length)) return items.length ? [[...items]] : [];
  const known = new Set(items.map(keyOf));
  const done = new Set<string>();
  let rest = [...items];
  const out: T[][] = [];
  while (rest.length) {
    const ready = rest.filter((t) => depsOf(t).every((d) => done.has(d) || !known.has(d)));
    if (!ready.length) throw new Error('dependency cycle');
    out.push(ready);
    const now = new Set(ready);
    for (const t of ready) done.add(keyOf(t));
    rest = rest.filter((t) => !now.has(t));
  }
  return out;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface SliceOptions {
  /** CPU time a slice may take before the work pauses */
  sliceMs?: number;
  /** when the last reply arrived (performance.now()), to find the quiet spell after it */
  lastReply?: () => number;
  /** how long no reply must have arrived before the work goes on */
  quietMs?: number;
  /** the longest a pause waits for that quiet, so the work cannot starve */
  maxWaitMs?: number;
}

/**
 * Cooperative time slicing for CPU work done while requests are in flight: calling the returned function costs
 * nothing until `sliceMs` have passed since the last pause, then it pauses: for one turn of the event loop, so
 * replies already on the wire are read (and the next requests sent), and then, while replies are still coming
 * in, on a timer until a quiet spell. A platform answers in bursts (many replies within a millisecond, then
 * nothing for several): work done in the middle of a burst holds up the rest of it and every request those
 * replies would send next, while the same work in the quiet after it costs the reading next to nothing (measured
 * on a loop of 3,760 GETs with 0.15 ms of work per reply: slices after each turn cost about half that CPU time in
 * wall time, slices after a quiet spell no measurable time).
 * Every caller shares one pause and one budget: sixteen workers resuming in the same turn must not each take a
 * slice of their own.
 */
export function timeSlicer(opts: SliceOptions = {}): () => Promise<void> | undefined {
  const { sliceMs = 1, lastReply = () => -Infinity, quietMs = 0.6, maxWaitMs = 4 } = opts;
  let since = performance.now();
  let pause: Promise<void> | undefined;
  const rest = async () => {
    await nextTurn();
    const from = performance.now();
    // A timer, not more turns: spinning the loop would take the CPU the replies' other end may need.
    while (performance.now() - lastReply() < quietMs && performance.now() - from < maxWaitMs) await sleep(1);
    pause = undefined;
    since = performance.now();
  };
  const wait = async () => {
    while (performance.now() - since >= sliceMs) await (pause ??= rest());
  };
  return () => (performance.now() - since < sliceMs ? undefined : wait());
}

/** Work queued by network callbacks and done between network events, in slices, never before the next send. */
export class Backlog<T> {
  private queue: T[] = [];
  private head = 0;
  private running?: Promise<void>;
  private readonly errors: unknown[] = [];

  constructor(private readonly work: (item: T) => void, private readonly slice = timeSlicer()) {}

  push(item: T): void {
    this.queue.push(item);
    this.running ??= this.run();
  }

  /** Resolves once everything pushed so far is done; throws the first error `work` threw, if any. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
    if (this.errors.length) throw this.errors[0];
  }

  private async run(): Promise<void> {
    await nextTurn();
    while (this.head < this.queue.length) {
      await this.slice();
      try {
        this.work(this.queue[this.head++]);
      } catch (e) {
        this.errors.push(e);
      }
    }
    this.queue = [];
    this.head = 0;
    this.running = undefined;
  }
}
