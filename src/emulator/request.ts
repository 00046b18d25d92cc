// One request to the emulator, in the order the platform takes it: authenticated, admitted by the rate limits,
// perhaps hit by an injected fault, handled against the store, and answered once the latency has passed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, type JsonObject } from '../schema/values.js';
import { CALLS_PATH, type Call, type CallLog } from './calls.js';
import { ApiFault, bad, type FaultKind } from './fault.js';
import { toJson } from './json.js';
import type { RateLimits } from './rate-limit.js';
import { findRoute, type Route } from './routes.js';
import { keyOf, type Store } from './store.js';
import type { EmulatorOptions, EmulatorStats } from './options.js';

export const MAX_BODY = 1024 * 1024;

type Reply = { status: number; body: unknown; headers?: Record<string, string> } | 'drop';

/** What every request is served from; `latency` and `limits` change while it runs (the benchmark sets them). */
export interface Serving {
  /** read as each request comes (the benchmark turns the rate-limit headers off and on) */
  opts: EmulatorOptions;
  store: Store;
  /** the accepted tokens, each with its place in the list (the call log's `caller`) */
  tokens: Map<string, number>;
  table: Route[];
  random: () => number;
  stats: EmulatorStats;
  callLog: CallLog;
  latency: number;
  limits: RateLimits;
  /** when the answer to a request that arrived at `arrived` is due, waited for */
  waitUntil: (due: number) => Promise<void>;
  now: () => number;
}

const faultKinds: FaultKind[] = ['unavailable', 'rate_limited', 'drop_before', 'drop_after'];

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
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

/** The caller: the place of its token in the accepted list. */
function authenticate(s: Serving, req: IncomingMessage): number {
  const auth = req.headers.authorization ?? '';
  const caller = auth.startsWith('Bearer ') ? s.tokens.get(auth.slice(7)) : undefined;
  if (caller === undefined) throw new ApiFault('unauthenticated', 'missing or invalid bearer token');
  return caller;
}

/**
 * The rate limits' verdict, as the platform limits a customer: after authentication, before anything is handled.
 * `headers` receives the rate-limit headers, sent with whatever the answer turns out to be; a 429 when refused.
 */
function admit(s: Serving, path: string, headers: Record<string, string>): Reply | undefined {
  const admission = s.limits.admit(path);
  const retryAfter = admission.headers['retry-after'];
  Object.assign(
    headers,
    s.opts.rateLimitHeaders !== false ? admission.headers : retryAfter ? { 'retry-after': retryAfter } : {},
  );
  if (admission.admitted) return undefined;
  s.stats.limited++;
  return {
    status: 429,
    body: new ApiFault('resource_exhausted', 'rate limit exceeded; retry after the time in Retry-After').body(),
  };
}

/** The fault injected into this request, if any (--fault-rate), counted and logged. */
function faultFor(s: Serving, route: Route, call: Call | undefined): FaultKind | undefined {
  const eligible = s.opts.faultOn !== 'writes' || route.write;
  const fault =
    eligible && s.opts.faultRate && s.random() < s.opts.faultRate
      ? faultKinds[Math.floor(s.random() * faultKinds.length)]
      : undefined;
  if (fault) s.stats.faults[fault]++;
  if (fault && call) call.fault = fault;
  return fault;
}

/** A write that took effect, in the call log: stored, and the id it created. */
function logStored(route: Route, result: unknown, call: Call): void {
  call.stored = true;
  const wrapper = (route.kind.create ?? route.kind.duplicate)?.wrapper;
  const made = wrapper && route.creates ? (result as JsonObject)[wrapper] : undefined;
  if (isObject(made)) call.created = String(made[keyOf(route.kind)]);
}

/** What to answer a request; the answer is sent (or the connection dropped) once the latency has passed. */
async function handle(
  s: Serving,
  req: IncomingMessage,
  call: Call | undefined,
  headers: Record<string, string>,
): Promise<Reply> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const raw = await readBody(req);
  const caller = authenticate(s, req);
  if (call) call.caller = caller;
  const method = req.method ?? 'GET';
  if (url.pathname === CALLS_PATH && method === 'GET') return { status: 200, body: s.callLog.snapshot() };
  const refused = admit(s, url.pathname, headers);
  if (refused) return refused;
  const { route, params } = findRoute(s.table, method, url.pathname);
  if (route.write) s.stats.writes++;
  else s.stats.reads++;
  const fault = faultFor(s, route, call);
  if (fault === 'unavailable') throw new ApiFault('unavailable', 'injected fault: service unavailable');
  if (fault === 'rate_limited')
    return {
      status: 429,
      body: new ApiFault('resource_exhausted', 'injected fault: rate limited').body(),
      headers: { 'retry-after': String(s.opts.retryAfter ?? 1) },
    };
  if (fault === 'drop_before') return 'drop';
  const query = url.searchParams;
  const body = parseBody(raw);
  const result = route.handler(s.store, { kind: route.kind, params, query, body, maxPageSize: s.opts.maxPageSize });
  if (call && route.write) logStored(route, result, call);
  // The write took effect, but the client never hears of it.
  if (fault === 'drop_after') return 'drop';
  return { status: 200, body: result };
}

function failed(e: unknown): Reply {
  const fault = e instanceof ApiFault ? e : new ApiFault('internal', 'internal error');
  if (!(e instanceof ApiFault)) console.error(e);
  return {
    status: fault.status,
    body: fault.body(),
    headers: fault.code === 'payload_too_large' ? { connection: 'close' } : {},
  };
}

/** Serves one request: logged as it arrives, handled, and answered when its latency is up. */
export function serve(s: Serving, req: IncomingMessage, res: ServerResponse): void {
  const arrived = s.now();
  // The request target as received; reading the log is not logged (it would fill the log it reads).
  const target = req.url ?? '/';
  const call = target.split('?')[0] === CALLS_PATH ? undefined : s.callLog.arrive(req.method ?? 'GET', target);
  const limitHeaders: Record<string, string> = {};
  void handle(s, req, call, limitHeaders)
    .catch(failed)
    .then(async (reply) => {
      // Latency is the time from arrival to answer; the handling, serialisation included, counts towards it.
      const text = reply === 'drop' ? '' : toJson(reply.body);
      if (s.latency) await s.waitUntil(arrived + s.latency);
      if (call) s.callLog.answer(call, reply === 'drop' ? null : reply.status);
      if (reply === 'drop') req.socket.destroy();
      else if (!res.headersSent && !res.destroyed) send(res, reply.status, text, { ...limitHeaders, ...reply.headers });
    });
}
