// The agent's HTTP listener: /metrics (Prometheus text), /healthz, /readyz, /status (JSON) and /hooks/github (a
// signed push triggers a run now). Nothing it answers holds a secret: the status passes the run's masking.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hookAction, MAX_HOOK_BODY, signatureValid } from './webhook.js';
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
  /** a delivery refused, for the log (never its body or signature) */
  refused(why: string): void;
}

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_HOOK_BODY) return fail(new TooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_HOOK_BODY) {
        req.removeAllListeners('data');
        req.resume();
        fail(new TooLarge());
      } else chunks.push(c);
    });
    req.on('end', () => done(Buffer.concat(chunks)));
    req.on('error', fail);
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

async function hook(req: IncomingMessage, res: ServerResponse, h: ListenerHooks): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (e) {
    h.refused(e instanceof TooLarge ? `body over ${MAX_HOOK_BODY} bytes` : 'body not read');
    res.setHeader('connection', 'close');
    return send(res, 413, { error: `body over ${MAX_HOOK_BODY} bytes` });
  }
  const signature = req.headers['x-hub-signature-256'];
  if (!signatureValid(h.secret(), body, typeof signature === 'string' ? signature : undefined)) {
    h.refused(h.secret() ? (signature ? 'wrong signature' : 'no X-Hub-Signature-256') : 'no webhook secret configured');
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

async function route(req: IncomingMessage, res: ServerResponse, h: ListenerHooks): Promise<void> {
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
      return hook(req, res, h);
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

export async function listen(host: string, port: number, h: ListenerHooks): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    route(req, res, h).catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done());
  });
  const a = server.address() as AddressInfo;
  return { server, url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` };
}
