// The emulator's HTTP side: its options, the server started on them, and what a test or the benchmark can ask of it
// (the store, the call log, the stats). Each request is served by request.ts: bearer auth, body limits, rate limits,
// fault injection, routing from the kind table, latency.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallLog, type Call } from './calls.js';
import type { FaultKind } from './fault.js';
import type { EmulatorOptions, EmulatorStats } from './options.js';
import { RateLimits, type RateRule } from './rate-limit.js';
import { serve, type Serving } from './request.js';
import { routes } from './routes.js';
import { Store } from './store.js';
import { systemClock } from '../util/clock.js';

export { MAX_BODY } from './request.js';

/** mulberry32: a tiny seeded PRNG, so a fault test run is reproducible with --fault-seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type { FaultKind };
export type { EmulatorOptions, EmulatorStats };

export interface Emulator {
  url: string;
  port: number;
  store: Store;
  stats: EmulatorStats;
  /** every request received, in arrival order, bounded (see calls.ts) */
  callLog: CallLog;
  /** the calls held, oldest first */
  calls(): Call[];
  /** the write requests held (any method but GET and HEAD), oldest first, whether they took effect or not */
  writes(): Call[];
  /** forgets the calls held so far */
  clearCalls(): void;
  server: Server;
  /** changes the latency of the answers from now on (the benchmark warms the emulator up without it) */
  setLatency(ms: number): void;
  /** replaces the rate limits from now on, with full buckets (the benchmark warms the emulator up without them) */
  setRateLimits(rules: RateRule[]): void;
  close(): Promise<void>;
}

/**
 * Resolves at `due` (a performance.now() time), never before: setTimeout counts whole milliseconds of a cached
 * clock and can fire up to one early, which at 20 ms of latency would flatter every client by 5%; an early
 * wake-up waits out the remaining fraction in turns of the event loop.
 */
export function sleepUntil(due: number): Promise<void> {
  return new Promise((resolve) => {
    const early = () => (performance.now() >= due ? resolve() : setImmediate(early));
    setTimeout(early, Math.max(0, due - performance.now()));
  });
}

/** The store, from its data file, else seeded (and saved when it has a file). */
function openStore(opts: EmulatorOptions): Store {
  const store = new Store(opts.dataFile);
  if (!store.load() && opts.seed) {
    store.seed(opts.seed.text, opts.seed.file);
    store.save();
  }
  return store;
}

/** What every request is served from, as the options say. */
function serving(opts: EmulatorOptions): Serving {
  const clock = opts.clock ?? systemClock;
  const now = () => clock.ms();
  return {
    opts,
    store: openStore(opts),
    tokens: new Map((opts.tokens?.length ? opts.tokens : ['dev-token']).map((t, i) => [t, i])),
    table: routes(),
    random: seededRandom(opts.faultSeed ?? Date.now()),
    stats: {
      reads: 0,
      writes: 0,
      faults: { unavailable: 0, rate_limited: 0, drop_before: 0, drop_after: 0 },
      limited: 0,
    },
    callLog: new CallLog(opts.callLogSize, () => performance.timeOrigin + clock.ms()),
    latency: opts.latencyMs ?? 0,
    limits: new RateLimits(opts.rateLimits ?? [], now),
    // The real clock's wait never wakes early (sleepUntil); another clock's is its own.
    waitUntil: (due) => (clock === systemClock ? sleepUntil(due) : clock.timer(Math.max(0, due - clock.ms())).done),
    now,
  };
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const s = serving(opts);
  const server = createServer((req, res) => serve(s, req, res));
  server.keepAliveTimeout = 5000;
  const host = opts.host ?? '127.0.0.1';
  const port = await listen(server, opts.port ?? 0, host);
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    store: s.store,
    stats: s.stats,
    callLog: s.callLog,
    calls: () => s.callLog.entries(),
    writes: () => s.callLog.writes(),
    clearCalls: () => s.callLog.clear(),
    server,
    setLatency: (ms) => {
      s.latency = ms;
    },
    setRateLimits: (rules) => {
      s.limits = new RateLimits(rules, s.now);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
