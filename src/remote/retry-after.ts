// How long an answer asks the client to wait (Retry-After), read from the headers; and the longest wait a timer holds.
// The live platform publishes no rate-limit numbers (no X-RateLimit-* headers, as its API notes say), so Retry-After
// is the one header about waiting that is read.
import type { IncomingHttpHeaders } from 'node:http';

/** The longest a timer holds (Node's setTimeout takes a larger delay as 1 ms, and warns): no pause is longer. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Retry-After, in seconds or as an HTTP date, as milliseconds from now; never more than `capMs`. */
export function retryAfterMs(h: IncomingHttpHeaders, capMs: number, epochNow = Date.now()): number | undefined {
  const raw = h['retry-after'];
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (text === undefined) return undefined;
  const ms = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) * 1000 : Date.parse(text) - epochNow;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), capMs) : undefined;
}
