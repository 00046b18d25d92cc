// The agent's HTTP listener: /metrics (Prometheus text), /healthz, /readyz, /status (JSON) and /hooks/github (a
// signed push triggers a run now). Nothing it answers holds a secret: the status passes the run's masking.
// A delivery costs an unauthenticated caller's target nothing: what its headers show to be wrong is refused before
// its body is read, bodies are read only within a small budget of bytes and time, and connections are bounded
// (connections.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hookAction, hookRefusal, signatureValid } from './webhook.js';
import { boundConnections, LIMITS, TIMEOUT_CHECK_MS, type ListenLimits } from './connections.js';
import { jsonText } from '../schema/values.js';

export interface ListenerHooks {
  metrics(): Promise<{ text: string; contentType: string }>;
  ready(): boolean;
  status(): object;
  /** the webhook secret as it is now (read from its file at each delivery, so a rotated secret needs no restart) */
  secret(): string | undefined;
  branch: string;
  /** a verified push to the branch: run now */
  trigger(): void;
  /** a delivery refused, for the log (never its body or signature; many are one line: refusals.ts) */
  refused(why: string): void;
}

/** How long a refused caller has to read its answer before its connection is closed. */
const LINGER_MS = 1_000;

/** The bytes reserved for bodies being read before their signature can be checked. */
class PendingBodies {
  private held = 0;
  constructor(private readonly max: number) {}
  reserve(bytes: number): boolean {
    if (this.held + bytes > this.max) return false;
    this.held += bytes;
    return true;
  }
  release(bytes: number): void {
    this.held -= bytes;
  }
}

/** The body, exactly its Content-Length (checked against the limit before), or undefined when it did not arrive in
 *  time (the answer then closes the connection) or the caller went away. */
function readBody(req: IncomingMessage, timeoutMs: number): Promise<Buffer | undefined> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const onData = (c: Buffer) => chunks.push(c);
    const finish = (body: Buffer | undefined) => {
      clearTimeout(timer);
      req.off('data', onData); // what still arrives is dropped, not held
      done(body);
    };
    req.on('data', onData);
    req.on('end', () => finish(Buffer.concat(chunks)));
    req.on('close', () => finish(undefined));
    req.on('error', () => finish(undefined));
  });
}

function send(res: ServerResponse, status: number, body: string | object, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : jsonText(body);
  res.writeHead(status, {
    'content-type':
      typeof body === 'string' && contentType === 'application/json' ? 'text/plain; charset=utf-8' : contentType,
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** A refusal before the body is read: the connection is closed rather than kept for the body's bytes. */
function refuse(res: ServerResponse, h: ListenerHooks, status: number, why: string): void {
  h.refused(why);
  res.setHeader('connection', 'close');
  if (status === 503) res.setHeader('retry-after', '10');
  // Once answered, the rest of the body is not read (Node would read it all to throw it away, the flood's CPU):
  // the socket stops reading, and closes when the caller has had a moment to read the answer.
  res.once('finish', () => {
    const socket = res.socket;
    socket?.pause();
    setTimeout(() => socket?.destroy(), LINGER_MS).unref();
  });
  send(res, status, { error: why });
}

interface Intake {
  pending: PendingBodies;
  limits: ListenLimits;
}

async function hook(req: IncomingMessage, res: ServerResponse, h: ListenerHooks, intake: Intake) {
  const early = hookRefusal(req.headers);
  if (early) return refuse(res, h, early.status, early.why);
  const secret = h.secret();
  if (secret === undefined) return refuse(res, h, 401, 'no webhook secret configured');
  const length = Number(req.headers['content-length']);
  if (!intake.pending.reserve(length)) return refuse(res, h, 503, 'too many deliveries being read at once');
  let body: Buffer | undefined;
  try {
    body = await readBody(req, intake.limits.bodyTimeoutMs);
  } finally {
    intake.pending.release(length);
  }
  if (!body) return refuse(res, h, 408, `body not received within ${intake.limits.bodyTimeoutMs} ms`);
  const signature = req.headers['x-hub-signature-256'];
  if (!signatureValid(secret, body, typeof signature === 'string' ? signature : undefined)) {
    h.refused('wrong signature');
    return send(res, 401, { error: 'signature missing or wrong' });
  }
  const event = req.headers['x-github-event'];
  const action = hookAction(typeof event === 'string' ? event : undefined, body, h.branch, req.headers['content-type']);
  if (action === 'run') h.trigger();
  send(res, action === 'run' ? 202 : 200, {
    [action === 'run' ? 'triggered' : action === 'pong' ? 'pong' : 'ignored']: true,
  });
}

/** The listener's paths and the methods each answers; any other path is 404, whatever its method. */
const PATHS: Record<string, string[]> = {
  '/hooks/github': ['POST'],
  '/metrics': ['GET', 'HEAD'],
  '/healthz': ['GET', 'HEAD'],
  '/readyz': ['GET', 'HEAD'],
  '/status': ['GET', 'HEAD'],
};

async function route(req: IncomingMessage, res: ServerResponse, h: ListenerHooks, intake: Intake) {
  const path = (req.url ?? '/').split('?')[0];
  const method = req.method ?? 'GET';
  const methods = Object.hasOwn(PATHS, path) ? PATHS[path] : undefined;
  if (!methods) return send(res, 404, { error: 'not found: /metrics, /healthz, /readyz, /status, POST /hooks/github' });
  if (!methods.includes(method)) {
    res.setHeader('allow', methods.join(', '));
    return send(res, 405, { error: `${methods[0]} only` });
  }
  switch (path) {
    case '/hooks/github':
      return hook(req, res, h, intake);
    case '/metrics': {
      const m = await h.metrics();
      return send(res, 200, m.text, m.contentType);
    }
    case '/healthz':
      return send(res, 200, 'ok\n');
    case '/readyz':
      return h.ready() ? send(res, 200, 'ready\n') : send(res, 503, 'not ready: the first run has not finished\n');
    default:
      return send(res, 200, h.status());
  }
}

/** `limits`: the defaults (LIMITS) but for tests that need a small one. */
export async function listen(
  host: string,
  port: number,
  h: ListenerHooks,
  limits: ListenLimits = LIMITS,
): Promise<{ server: Server; url: string }> {
  const intake = { pending: new PendingBodies(limits.pendingBytes), limits };
  const server = createServer({ connectionsCheckingInterval: TIMEOUT_CHECK_MS }, (req, res) => {
    route(req, res, h, intake).catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  boundConnections(server, limits);
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    // A flood's connections wait in the kernel's queue rather than crowd a probe's out of it (the default, 511).
    server.listen({ port, host, backlog: limits.backlog }, () => done());
  });
  const a = server.address() as AddressInfo;
  return { server, url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` };
}
