// The emulator's HTTP side: routing from the kind table, bearer auth, body limits, rate limits, latency, fault
// injection and the call log.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObject, type JsonObject } from '../schema/values.js';
import { CALLS_PATH, CallLog, type Call } from './calls.js';
import { ApiFault, bad, type FaultKind } from './fault.js';
import { toJson } from './json.js';
import { RateLimits, type RateRule } from './rate-limit.js';
import { findRoute, routes } from './routes.js';
import { keyOf, Store } from './store.js';
import { systemClock } from '../util/clock.js';
import type { Clock } from '../types.js';

export const MAX_BODY = 1024 * 1024;

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
const faultKinds: FaultKind[] = ['unavailable', 'rate_limited', 'drop_before', 'drop_after'];

export interface EmulatorStats {
  reads: number;
  writes: number;
  faults: Record<FaultKind, number>;
  /** requests refused with 429 by the rate limits (not counted in reads and writes) */
  limited: number;
}

type Reply = { status: number; body: unknown; headers?: Record<string, string> } | 'drop';

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

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
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

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY) return reject(new ApiFault('payload_too_large', `request body over ${MAX_BODY} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ApiFault('payload_too_large', `request body over ${MAX_BODY} bytes`));
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseBody(buf: Buffer): JsonObject {
  if (buf.length === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    throw bad('malformed JSON body');
  }
  if (!isObject(v)) throw bad('the body must be a JSON object');
  return v;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  const store = new Store(opts.dataFile);
  if (!store.load() && opts.seed) {
    store.seed(opts.seed.text, opts.seed.file);
    store.save();
  }
  const tokens = new Map((opts.tokens?.length ? opts.tokens : ['dev-token']).map((t, i) => [t, i]));
  let latency = opts.latencyMs ?? 0;
  const table = routes();
  const random = seededRandom(opts.faultSeed ?? Date.now());
  const stats: EmulatorStats = {
    reads: 0,
    writes: 0,
    faults: { unavailable: 0, rate_limited: 0, drop_before: 0, drop_after: 0 },
    limited: 0,
  };
  const clock = opts.clock ?? systemClock;
  const callLog = new CallLog(opts.callLogSize, () => performance.timeOrigin + clock.ms());
  /** the real clock's wait never wakes early (sleepUntil); another clock's is its own */
  const waitUntil = (due: number) =>
    clock === systemClock ? sleepUntil(due) : clock.timer(Math.max(0, due - clock.ms())).done;
  let limits = new RateLimits(opts.rateLimits ?? [], () => clock.ms());

  /**
   * What to answer a request; the answer is sent (or the connection dropped) once the latency has passed.
   * `headers` receives the rate-limit headers, sent with whatever the answer turns out to be.
   */
  const handle = async (
    req: IncomingMessage,
    call: Call | undefined,
    headers: Record<string, string>,
  ): Promise<Reply> => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const auth = req.headers.authorization ?? '';
    const raw = await readBody(req);
    if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice(7))) {
      throw new ApiFault('unauthenticated', 'missing or invalid bearer token');
    }
    if (call) call.caller = tokens.get(auth.slice(7));
    const method = req.method ?? 'GET';
    if (url.pathname === CALLS_PATH && method === 'GET') return { status: 200, body: callLog.snapshot() };
    // Limited as the platform limits a customer: after authentication, before anything is handled.
    const admission = limits.admit(url.pathname);
    const retryAfter = admission.headers['retry-after'];
    Object.assign(
      headers,
      opts.rateLimitHeaders !== false ? admission.headers : retryAfter ? { 'retry-after': retryAfter } : {},
    );
    if (!admission.admitted) {
      stats.limited++;
      return {
        status: 429,
        body: new ApiFault('resource_exhausted', 'rate limit exceeded; retry after the time in Retry-After').body(),
      };
    }
    const { route: r, params } = findRoute(table, method, url.pathname);
    if (r.write) stats.writes++;
    else stats.reads++;
    const eligible = opts.faultOn !== 'writes' || r.write;
    const fault =
      eligible && opts.faultRate && random() < opts.faultRate
        ? faultKinds[Math.floor(random() * faultKinds.length)]
        : undefined;
    if (fault) stats.faults[fault]++;
    if (fault && call) call.fault = fault;
    if (fault === 'unavailable') throw new ApiFault('unavailable', 'injected fault: service unavailable');
    if (fault === 'rate_limited') {
      return {
        status: 429,
        body: new ApiFault('resource_exhausted', 'injected fault: rate limited').body(),
        headers: { 'retry-after': String(opts.retryAfter ?? 1) },
      };
    }
    if (fault === 'drop_before') return 'drop';
    const result = r.handler(store, {
      kind: r.kind,
      params,
      query: url.searchParams,
      body: parseBody(raw),
      maxPageSize: opts.maxPageSize,
    });
    if (call && r.write) {
      call.stored = true;
      const wrapper = (r.kind.create ?? r.kind.duplicate)?.wrapper;
      const made = wrapper && r.creates ? (result as JsonObject)[wrapper] : undefined;
      if (isObject(made)) call.created = String(made[keyOf(r.kind)]);
    }
    // The write took effect, but the client never hears of it.
    if (fault === 'drop_after') return 'drop';
    return { status: 200, body: result };
  };

  const failed = (e: unknown): Reply => {
    const fault = e instanceof ApiFault ? e : new ApiFault('internal', 'internal error');
    if (!(e instanceof ApiFault)) console.error(e);
    return {
      status: fault.status,
      body: fault.body(),
      headers: fault.code === 'payload_too_large' ? { connection: 'close' } : {},
    };
  };

  const server = createServer((req, res) => {
    const arrived = clock.ms();
    // The request target as received; reading the log is not logged (it would fill the log it reads).
    const target = req.url ?? '/';
    const call = target.split('?')[0] === CALLS_PATH ? undefined : callLog.arrive(req.method ?? 'GET', target);
    const limitHeaders: Record<string, string> = {};
    void handle(req, call, limitHeaders)
      .catch(failed)
      .then(async (reply) => {
        // Latency is the time from arrival to answer; the handling, serialisation included, counts towards it.
        const text = reply === 'drop' ? '' : toJson(reply.body);
        if (latency) await waitUntil(arrived + latency);
        if (call) callLog.answer(call, reply === 'drop' ? null : reply.status);
        if (reply === 'drop') req.socket.destroy();
        else if (!res.headersSent && !res.destroyed)
          send(res, reply.status, text, { ...limitHeaders, ...reply.headers });
      });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    store,
    stats,
    callLog,
    calls: () => callLog.entries(),
    writes: () => callLog.writes(),
    clearCalls: () => callLog.clear(),
    server,
    setLatency: (ms) => {
      latency = ms;
    },
    setRateLimits: (rules) => {
      limits = new RateLimits(rules, () => clock.ms());
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
