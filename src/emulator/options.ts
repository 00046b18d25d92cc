// What an emulator is started with, and the counts it keeps (server.ts starts it; request.ts serves from them).
import type { FaultKind } from './fault.js';
import type { RateRule } from './rate-limit.js';
import type { Clock } from '../types.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** seed text and the name to report it under */
  seed?: { text: string; file: string };
  tokens?: string[];
  dataFile?: string;
  latencyMs?: number;
  faultRate?: number;
  faultSeed?: number;
  /** seconds sent in Retry-After with injected 429s */
  retryAfter?: number;
  /** cap on list pages, below the default 1000 (the live API caps pages small) */
  maxPageSize?: number;
  /** which requests faults may hit: all, or only writes (to test apply's reporting with reads intact) */
  faultOn?: 'all' | 'writes';
  /** how many calls the call log keeps (the last ones; default 10,000) */
  callLogSize?: number;
  /** token buckets (--rate-limit): a request finding one of its buckets empty is answered 429 */
  rateLimits?: RateRule[];
  /** false: a 429 says only Retry-After, and no answer says X-RateLimit-* (a platform that publishes nothing) */
  rateLimitHeaders?: boolean;
  /** the clock of the rate buckets, the latency and the call log (the real one by default; a test's virtual one) */
  clock?: Clock;
}

export interface EmulatorStats {
  reads: number;
  writes: number;
  faults: Record<FaultKind, number>;
  /** requests refused with 429 by the rate limits (not counted in reads and writes) */
  limited: number;
}
