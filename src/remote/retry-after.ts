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

/**
 * X-RateLimit-Limit, where a platform publishes it (the live one does not): read only for a fleet budget's `share`,
 * which is a fraction of it (budget/gate.ts). A value that is not a whole number from 1 is no knowledge.
 */
export function publishedLimit(h: IncomingHttpHeaders): number | undefined {
  const raw = h['x-ratelimit-limit'];
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}
