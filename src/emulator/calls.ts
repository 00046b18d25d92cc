// The emulator's call log: every request it received, in arrival order, so tests can assert what a client sent and
// in which order. Bounded: a ring of the last `capacity` calls, with a count of those that fell out. Never holds a
// request body or a header (the token and RTMP stream keys are secrets): method, path, status and what it did.
import type { FaultKind } from './fault.js';

/** Where the log is served to users of the emulator as a process; the platform's API has no path under /_emulator. */
export const CALLS_PATH = '/_emulator/calls';
export const DEFAULT_CALL_LOG_SIZE = 10_000;

export interface Call {
  /** arrival order, from 1 over the emulator's life (calls that fell out of the ring keep their numbers) */
  seq: number;
  method: string;
  /** when it arrived: milliseconds since the epoch, to a fraction (for rates: how many in any one second) */
  at: number;
  /** the request target as received: path and query string, percent-encoding kept */
  path: string;
  /** the method is a write (anything but GET and HEAD), whether or not it took effect */
  write: boolean;
  /** the HTTP status answered; null until the answer goes out, and for a connection dropped instead of answered */
  status: number | null;
  /** the order answers went out (or connections were dropped), from 1; null until then */
  answered: number | null;
  /** the request changed the store */
  stored: boolean;
  /** the id (or key) a create or a duplicate made */
  created?: string;
  /** which of the accepted tokens the request carried: its place in the emulator's list (--token), from 0; never the
   *  token itself. Clients given a token each (several agents) are told apart by it. */
  caller?: number;
  /** the fault injected into this request, if any */
  fault?: FaultKind;
}

/** The most calls that arrived within any one second (a window of 1000 ms, its end left out). */
export function busiestSecond(calls: readonly Pick<Call, 'at'>[]): number {
  const at = calls.map((c) => c.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (j < at.length && at[j] < at[i] + 1000) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

export class CallLog {
  private readonly ring: Call[] = [];
  /** where the oldest call sits once the ring is full */
  private start = 0;
  private arrivals = 0;
  private answers = 0;
  /** calls that fell out of the ring (clear() does not count) */
  dropped = 0;

  constructor(
    readonly capacity = DEFAULT_CALL_LOG_SIZE,
    /** epoch milliseconds, when a call arrives */
    private readonly now = () => performance.timeOrigin + performance.now(),
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('the call log needs room for at least one call');
  }

  /** Records a request as it arrives; the caller fills in the rest of the entry as it is handled. */
  arrive(method: string, path: string): Call {
    const call: Call = {
      seq: ++this.arrivals,
      at: this.now(),
      method,
      path,
      write: method !== 'GET' && method !== 'HEAD',
      status: null,
      answered: null,
      stored: false,
    };
    if (this.ring.length < this.capacity) {
      this.ring.push(call);
    } else {
      this.ring[this.start] = call;
      this.start = (this.start + 1) % this.capacity;
      this.dropped++;
    }
    return call;
  }

  /** Marks a call answered with `status`, or dropped without an answer (null). */
  answer(call: Call, status: number | null): void {
    call.status = status;
    call.answered = ++this.answers;
  }

  /** The calls still held, oldest first (copies: changing them changes nothing here). */
  entries(): Call[] {
    return [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)].map((c) => ({ ...c }));
  }

  /** The write requests still held, oldest first, whether they took effect or not. */
  writes(): Call[] {
    return this.entries().filter((c) => c.write);
  }

  /** Forgets the calls held so far (and the dropped count); sequence numbers go on from where they were. */
  clear(): void {
    this.ring.length = 0;
    this.start = 0;
    this.dropped = 0;
  }

  /** What the debug endpoint answers. */
  snapshot(): { calls: Call[]; dropped: number; capacity: number } {
    return { calls: this.entries(), dropped: this.dropped, capacity: this.capacity };
  }
}
