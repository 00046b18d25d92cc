// How the client tells failures apart: which ones repeating a call cannot mend, how long to wait before the next
// attempt, and which ones leave a write's effect unknown (apply's confirmation of lost writes reads that too).
import { ApiError } from '../errors.js';

/** Failures that repeating the call cannot mend: the answer is too large, or the run is out of time. */
export const TOO_LARGE = 'response_too_large';
export const DEADLINE = 'deadline_exceeded';
export const FINAL = new Set([TOO_LARGE, DEADLINE]);

/** How long to wait before attempt `attempt + 1`: exponential, with full jitter so retries do not come in step. */
export const backoff = (opts: { backoffMs: number }, attempt: number, random = Math.random) =>
  random() * opts.backoffMs * 2 ** (attempt - 1);

/**
 * How long to wait before attempt `attempt + 1` after a refusal with `status` that asked for `retryAfterMs` (if it
 * did). Requests refused together are told the same Retry-After: waited as it is, they would all come back at once
 * and meet the same refusal. After a 429 the limiter spaces them (endpoint-rates.ts); after any other refusal the
 * Retry-After is the least wait, and the backoff's jitter is added to it.
 */
export const retryWait = (
  opts: { backoffMs: number },
  attempt: number,
  status: number,
  retryAfterMs?: number,
  random = Math.random,
) =>
  retryAfterMs === undefined
    ? backoff(opts, attempt, random)
    : status === 429
      ? retryAfterMs
      : retryAfterMs + backoff(opts, attempt, random);

/**
 * A failure after which a write may or may not have taken effect: no answer, or a server-side error. A call the
 * deadline kept from starting was never sent (unless it says an earlier attempt was: then it is ambiguous).
 */
export const maybeApplied = (e: unknown) =>
  e instanceof ApiError && (e.ambiguous || (e.status === 0 && e.reason !== DEADLINE) || e.status >= 500);
