// One HTTP exchange with the platform's one origin: undici's keep-alive pool, bearer headers built once, the answer
// read whole and size-capped, and every exchange still waiting abandoned at the run's deadline. Retries, pacing and
// what an answer means are the client's (client.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import type { JsonObject } from '../schema/values.js';
import { DEADLINE, TOO_LARGE } from './failures.js';
import { MAX_TIMER_MS } from './retry-after.js';
import type { Clock } from '../types.js';

/** Why an exchange was abandoned by tapedeck itself (not by the network). */
export class Abandoned extends Error {
  constructor(
    readonly code: typeof TOO_LARGE | typeof DEADLINE,
    message: string,
  ) {
    super(message);
  }
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface TransportOptions {
  baseUrl: string;
  token: string;
  concurrency: number;
  timeoutMs: number;
  maxResponseBytes: number;
  /** on `clock` */
  runDeadlineAt?: number;
  clock: Clock;
  /** called once when the run's deadline passes, before the waiting exchanges are abandoned */
  onDeadline: () => void;
}

export class Transport {
  private readonly pool: Pool;
  readonly origin: string;
  private readonly prefix: string;
  /** built once: a plan sends thousands of requests with the same headers */
  private readonly headers: { read: Record<string, string>; write: Record<string, string> };
  /**
   * requests waiting for their answer, each with how to abandon it when the run's deadline passes. An entry is
   * emptied when its request ends: a Set's table left behind in the old generation (it is rebuilt as entries come
   * and go) still points at entries it held, and a closure reached that way kept its whole exchange (answer text,
   * buffers, headers) alive into the old generation, for every request.
   */
  private readonly waiting = new Set<{ abandon?: (why: Abandoned) => void }>();
  /** one timer for the run's deadline, started with the first request (not one per request) */
  private cancelDeadline?: () => void;

  constructor(private readonly opts: TransportOptions) {
    const url = new URL(opts.baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/$/, '');
    // One pool for the one origin: requests name only their path, and can never reach another host.
    this.pool = new Pool(this.origin, { connections: opts.concurrency, pipelining: 1, keepAliveTimeout: 10_000 });
    const read = { authorization: `Bearer ${opts.token}`, accept: 'application/json' };
    this.headers = { read, write: { ...read, 'content-type': 'application/json' } };
  }

  async close(): Promise<void> {
    this.cancelDeadline?.();
    await this.pool.close();
  }

  /** At the run's deadline every request still waiting is abandoned. */
  private watchDeadline(): void {
    if (this.cancelDeadline || this.opts.runDeadlineAt === undefined) return;
    this.cancelDeadline = this.opts.clock.after(
      Math.min(MAX_TIMER_MS, Math.max(0, this.opts.runDeadlineAt - this.opts.clock.ms())),
      () => {
        this.opts.onDeadline();
        for (const w of this.waiting)
          w.abandon?.(new Abandoned(DEADLINE, 'the run passed its --deadline while waiting for the answer'));
      },
      true,
    );
  }

  /**
   * One request and its whole answer. undici's dispatch with callbacks rather than `request`: no stream is built
   * for a body that is read whole anyway, which takes about a third of the client's CPU off every call.
   */
  exchange(method: string, path: string, body?: JsonObject): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.watchDeadline();
      const entry: { abandon?: (why: Abandoned) => void } = { abandon: (why) => answer.abandon(why) };
      this.waiting.add(entry);
      const settle = () => {
        this.waiting.delete(entry);
        entry.abandon = undefined;
      };
      const answer = new Answer(this.opts.maxResponseBytes, resolve, reject, settle);
      this.pool.dispatch(
        {
          path: `${this.prefix}${path}`,
          method: method as Dispatcher.HttpMethod,
          headers: body ? this.headers.write : this.headers.read,
          body: body ? JSON.stringify(body) : undefined,
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
        },
        answer,
      );
    });
  }
}

/** One answer as undici hands it over, read whole within `limit` bytes; `settle` is called once it ends. */
class Answer implements Dispatcher.DispatchHandler {
  private readonly chunks: Buffer[] = [];
  private status = 0;
  private size = 0;
  private headers: IncomingHttpHeaders = {};
  private controller: Dispatcher.DispatchController | undefined;
  private abandoned: Abandoned | undefined;

  constructor(
    private readonly limit: number,
    private readonly done: (reply: Reply) => void,
    private readonly fail: (e: unknown) => void,
    private readonly settle: () => void,
  ) {}

  abandon(why: Abandoned): void {
    // A too-large answer came with a status; a deadline leaves no answer at all.
    this.abandoned ??= Object.assign(why, { status: why.code === TOO_LARGE ? this.status : 0 });
    this.controller?.abort(this.abandoned);
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.abandoned) c.abort(this.abandoned); // the deadline passed while it waited for a connection: never sent
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, h: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = h;
    // Refused on its headers: an answer that says it is too large is not downloaded to find out.
    const claimed = Number(h['content-length']);
    if (claimed > this.limit)
      this.abandon(
        new Abandoned(TOO_LARGE, `the answer is ${claimed} bytes, over the limit of ${this.limit}; not read`),
      );
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.abandoned) return;
    this.size += chunk.length;
    if (this.size > this.limit)
      return this.abandon(
        new Abandoned(TOO_LARGE, `the answer passed the limit of ${this.limit} bytes; reading stopped there`),
      );
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.settle();
    this.done({ status: this.status, headers: this.headers, text: Buffer.concat(this.chunks).toString('utf8') });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.settle();
    this.fail(this.abandoned ?? Object.assign(err, { afterHeaders: this.status !== 0 }));
  }
}
