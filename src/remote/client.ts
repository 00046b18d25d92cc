// The only HTTP client: undici over a keep-alive pool, bearer auth, timeouts, retries with backoff and jitter for
// calls that are safe to repeat, requests paced to the platform's rate limits (limiter.ts), and JSON errors turned
// into ApiError. Everything a server sends is untrusted: the token is masked in every answer, server text is cleaned
// before it can reach an output, answers are size-capped, and no request starts after the run's deadline.
import { DEADLINE, FINAL, retryWait } from './failures.js';
import { ApiError, errorLine, NotSent, OutcomeUnknown, UserError } from '../errors.js';
import { Secrets, serverText } from '../util/redact.js';
import { isObject, type JsonObject } from '../schema/values.js';
import { Limiter, type Ticket } from './limiter.js';
import { Abandoned, Transport, type Reply } from './transport.js';
import { MAX_TIMER_MS, publishedLimit, retryAfterMs } from './retry-after.js';
import { systemClock } from '../util/clock.js';
import type { Clock } from '../types.js';
import type { BudgetGate } from '../budget/gate.js';

export interface ClientOptions {
  baseUrl: string;
  token: string;
  concurrency: number;
  /** at most this many requests start in any one second (--max-rps) */
  maxRps?: number;
  /** per attempt */
  timeoutMs: number;
  /** attempts for a call that may be repeated (GET, PUT, PATCH) */
  maxAttempts: number;
  /** no new attempt starts after this many ms since the first */
  deadlineMs: number;
  /** base of the exponential backoff */
  backoffMs: number;
  /** an answer larger than this is refused (not read further, not retried) */
  maxResponseBytes: number;
  /** the whole run's deadline (on `clock`): no request starts after it, and one still waiting is abandoned */
  runDeadlineAt?: number;
  debug?: (line: string) => void;
  /** the run's clock, for retry waits, deadlines and pacing (the real one by default) */
  clock?: Clock;
  /** the fleet's budget (budget/gate.ts), when the project file gives one: closed with the client */
  budget?: BudgetGate;
}

export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
export const defaultClientOptions = {
  concurrency: 8,
  timeoutMs: 30_000,
  maxAttempts: 5,
  deadlineMs: 120_000,
  backoffMs: 200,
  maxResponseBytes: MAX_RESPONSE_BYTES,
};

export interface Response {
  status: number;
  body: JsonObject;
}

const RETRY_STATUS = new Set([408, 429, 502, 503, 504]);
const IDEMPOTENT = new Set(['GET', 'PUT', 'PATCH']);

/** loopback hosts may use plain http; anything else must be https unless the user insists. */
export function checkBaseUrl(raw: string, insecureHttp: boolean, warn: (m: string) => void): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(`base URL ${JSON.stringify(raw)} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UserError(`base URL must be http(s), not ${url.protocol}`);
  if (url.username || url.password)
    throw new UserError('base URL must not carry credentials; use TAPEDECK_TOKEN or --token-file');
  // Requests name only their path: a query or fragment here would be dropped from every one of them, silently.
  // The rest of the URL is not echoed: a query may hold a key.
  if (/[?#]/.test(raw))
    throw new UserError(
      `base URL ${url.origin}${url.pathname} must not have a query string or fragment (requests would drop it)`,
    );
  const loopback = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    if (!insecureHttp)
      throw new UserError(
        `base URL ${url.origin} is plain http: the token would travel unencrypted (use https, or --insecure-http to override)`,
      );
    warn(`warning: sending the token over plain http to ${url.origin} (--insecure-http)`);
  }
  return url;
}

/** What reading needs of a client: one call. The planner's scenario tests answer it from the emulator in-process. */
export type Caller = Pick<Client, 'call'>;

export class Client {
  private readonly transport: Transport;
  /** requests sent, and how many of them the platform refused with 429 (the agent's metrics) */
  readonly counts = { reads: 0, writes: 0, throttled: 0 };
  /** the token, in every form a server could echo it in */
  private readonly secrets: Secrets;
  /** when each attempt may start: every lane of the run shares it */
  readonly limiter: Limiter;
  readonly clock: Clock;
  /** awaited right before each attempt of a write goes out: throws when it may not (the state's lock not confirmed) */
  private writeGate: (() => Promise<void>) | undefined;

  constructor(readonly opts: ClientOptions) {
    this.secrets = new Secrets().add(opts.token);
    this.clock = opts.clock ?? systemClock;
    const { concurrency, maxRps, debug, budget } = opts;
    this.limiter = new Limiter({ concurrency, maxRps, debug, clock: this.clock, budget });
    this.transport = new Transport({ ...opts, clock: this.clock, onDeadline: () => this.limiter.abandonWaiting() });
  }

  async close(): Promise<void> {
    await this.opts.budget?.close();
    await this.transport.close();
  }

  /** How long the run waited on the fleet's budget, and the round trips it cost (the plan and apply JSON). */
  budgetReport(): { waited_ms: number; round_trips: number } | undefined {
    const b = this.opts.budget;
    return b && { waited_ms: Math.round(b.waitedMs), round_trips: b.roundTrips };
  }

  /**
   * From now on every attempt of a write (anything but GET) waits for `gate` after its turn has come (pacing can
   * hold it for long), and is not sent when `gate` throws: it fails as not sent, or as of unknown outcome when an
   * earlier attempt of it got no clear answer.
   */
  gateWrites(gate: () => Promise<void>): void {
    this.writeGate = gate;
  }

  /**
   * One call, retried where repeating it cannot do harm: GET, PUT, PATCH, a POST the caller declares idempotent
   * (a replace-all write), and any call refused with 429. Any other POST is never retried here: a create whose
   * answer was lost may have happened, and apply looks it up before sending it again.
   */
  async call(method: string, path: string, body?: JsonObject, idempotent = IDEMPOTENT.has(method)): Promise<Response> {
    const started = this.clock.ms();
    /** an earlier attempt of this write got no answer or a 5xx: it may have taken effect, whatever comes next */
    let mayHaveApplied = false;
    const notStarted = () =>
      new ApiError(
        method,
        path,
        0,
        DEADLINE,
        'the run passed its --deadline; no new request was started',
        mayHaveApplied,
      );
    for (let attempt = 1; ; attempt++) {
      if (this.opts.runDeadlineAt !== undefined && this.clock.ms() >= this.opts.runDeadlineAt) throw notStarted();
      let ticket: Ticket;
      try {
        ticket = await this.limiter.acquire(path);
      } catch {
        throw notStarted(); // the deadline passed while it waited for its turn
      }
      if (method !== 'GET' && this.writeGate) await this.passGate(ticket, mayHaveApplied);
      let outcome: Response | ApiError;
      try {
        outcome = await this.once(method, path, body, ticket);
      } catch (e) {
        outcome = e as ApiError;
      }
      if (!(outcome instanceof ApiError)) return outcome;
      mayHaveApplied ||= method !== 'GET' && (outcome.status === 0 || outcome.status >= 500);
      const transient = !FINAL.has(outcome.reason) && (outcome.status === 0 || RETRY_STATUS.has(outcome.status));
      const retryAfter = (outcome as ApiError & { retryAfterMs?: number }).retryAfterMs;
      const wait = retryWait(this.opts, attempt, outcome.status, retryAfter);
      // A 429 was refused before any processing, so even a create may be sent again.
      const repeatable = idempotent || outcome.status === 429;
      const pastDeadline =
        this.clock.ms() - started + wait > this.opts.deadlineMs ||
        this.clock.ms() + wait >= (this.opts.runDeadlineAt ?? Infinity);
      if (!repeatable || !transient || attempt >= this.opts.maxAttempts || pastDeadline) {
        // The last answer may be a plain refusal (a 429) after an attempt that may have gone through: say so.
        throw mayHaveApplied && !outcome.ambiguous
          ? new ApiError(
              method,
              path,
              outcome.status,
              outcome.reason,
              `${outcome.message} (an earlier attempt got no clear answer)`,
              true,
            )
          : outcome;
      }
      this.opts.debug?.(
        `retry ${method} ${path} in ${Math.round(wait)} ms after ${outcome.status || outcome.reason} (attempt ${attempt + 1}/${this.opts.maxAttempts})`,
      );
      await this.clock.timer(Math.min(wait, MAX_TIMER_MS)).done;
    }
  }

  private async passGate(ticket: Ticket, mayHaveApplied: boolean): Promise<void> {
    try {
      await this.writeGate!();
    } catch (e) {
      this.limiter.settle(ticket);
      if (!mayHaveApplied) throw new NotSent(errorLine(e));
      throw new OutcomeUnknown(
        `an earlier attempt got no clear answer and may have taken effect, and no other was sent: ${errorLine(e)}`,
      );
    }
  }

  private async once(method: string, path: string, body: JsonObject | undefined, ticket: Ticket): Promise<Response> {
    if (method === 'GET') this.counts.reads++;
    else this.counts.writes++;
    const t0 = this.clock.ms();
    let reply: Reply;
    try {
      reply = await this.transport.exchange(method, path, body);
    } catch (e) {
      this.limiter.settle(ticket);
      const code = (e as { code?: string }).code ?? 'network_error';
      this.opts.debug?.(`${method} ${path} -> ${code} (${Math.round(this.clock.ms() - t0)} ms)`);
      // A write abandoned after it was sent may have taken effect all the same.
      if (e instanceof Abandoned)
        throw new ApiError(method, path, (e as { status?: number }).status ?? 0, e.code, e.message, method !== 'GET');
      if ((e as { afterHeaders?: boolean }).afterHeaders) {
        throw new ApiError(
          method,
          path,
          0,
          'connection_failed',
          `the response was cut off (${code})`,
          method !== 'GET',
        );
      }
      const timeout = /TIMEOUT/.test(code);
      throw new ApiError(
        method,
        path,
        0,
        timeout ? 'timeout' : 'connection_failed',
        timeout ? `no response within ${this.opts.timeoutMs} ms` : `the connection failed (${code})`,
        method !== 'GET',
      );
    }
    if (reply.status === 429) this.counts.throttled++;
    this.limiter.settle(ticket, {
      status: reply.status,
      retryAfterMs: retryAfterMs(reply.headers, this.opts.deadlineMs),
      ...(this.opts.budget?.wantsLimit ? { limit: publishedLimit(reply.headers) } : {}),
    });
    this.opts.debug?.(`${method} ${path} -> ${reply.status} (${Math.round(this.clock.ms() - t0)} ms)`);
    let json: unknown = {};
    if (reply.text) {
      try {
        json = JSON.parse(reply.text);
      } catch {
        json = undefined;
      }
    }
    // A server that echoes the token (in a field, a key, an encoding of it) gets it masked before anything keeps
    // or prints the answer: the plan, the state, an export, an error.
    if (json !== undefined && this.secrets.holds(reply.text)) json = this.secrets.maskJson(json);
    if (reply.status >= 200 && reply.status < 300) {
      if (!isObject(json))
        throw new ApiError(method, path, reply.status, 'bad_response', 'the response is not a JSON object');
      return { status: reply.status, body: json };
    }
    throw this.failure(method, path, reply, json);
  }

  private failure(method: string, path: string, res: Reply, json: unknown): ApiError {
    const status = res.status;
    // The code and the message are the server's words: masked, on one line, capped. (Its details are never shown.)
    const code =
      isObject(json) && typeof json.code === 'string' && json.code
        ? serverText(json.code, this.secrets, 100)
        : `http_${status}`;
    let message =
      isObject(json) && typeof json.message === 'string' ? serverText(json.message, this.secrets) : `HTTP ${status}`;
    if (status === 401 || status === 403)
      message = 'the token was refused by the server (check TAPEDECK_TOKEN or --token-file and its permissions)';
    if (status >= 300 && status < 400)
      message = `the server answered with a redirect (${status}); redirects are not followed so the token stays with ${this.transport.origin}`;
    return Object.assign(new ApiError(method, path, status, code, message), {
      retryAfterMs: retryAfterMs(res.headers, this.opts.deadlineMs),
    });
  }
}
