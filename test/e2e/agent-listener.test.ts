// The agent's listener over real loopback HTTP, spoken to through raw sockets so a test controls every byte: what
// an unauthenticated caller can make it hold. A delivery wrong by its headers is answered before its body is sent;
// bodies are read within a budget of bytes and of time; past the connection limit the oldest idle connection goes,
// so /healthz still answers; a signature is exactly one sha256=<64 hex>. (The memory figure of a flood of 2,000
// connections is measured by bench/webhook-flood.ts, not here: docs/performance.md.)
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS, type ListenLimits } from '../../src/agent/connections.js';
import { listen } from '../../src/agent/listener.js';
import { until } from '../helpers/agent.js';

const SECRET = 'hook-s3cret';
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listener(limits: Partial<ListenLimits> = {}, secret: string | null = SECRET) {
  const refused: string[] = [];
  let triggered = 0;
  const { server, url } = await listen(
    '127.0.0.1',
    0,
    {
      metrics: async () => ({ text: '', contentType: 'text/plain' }),
      ready: () => true,
      status: () => ({}),
      secret: () => secret ?? undefined,
      branch: 'main',
      trigger: () => triggered++,
      refused: (why) => refused.push(why),
    },
    { ...LIMITS, ...limits },
  );
  servers.push(server);
  return { port: Number(new URL(url).port), refused, triggered: () => triggered };
}

/** A raw connection: what it has received so far, and whether the server closed it. */
function open(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let received = '';
  let closed = false;
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  return {
    socket,
    /** resolves once the bytes are with the kernel (so with the server, over loopback) */
    send: (data: string) => new Promise<void>((done) => socket.write(data, () => done())),
    received: () => received,
    closed: () => closed,
    status: () => until('an answer', () => /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]).then(Number),
  };
}

async function healthz(port: number): Promise<number> {
  const probe = open(port);
  await probe.send('GET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n');
  return probe.status();
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const push = JSON.stringify({ ref: 'refs/heads/main' });

/** The request's head as lines (each a `Name: value` header; a name may repeat), with no body sent. */
const head = (headers: string[]) =>
  ['POST /hooks/github HTTP/1.1', 'Host: agent', 'X-GitHub-Event: push', ...headers, '', ''].join('\r\n');

describe("the agent's listener, to an unauthenticated caller", () => {
  it.each([
    ['no signature header', ['Content-Type: application/json', 'Content-Length: 1000'], 401, 'no X-Hub-Signature-256'],
    [
      'a malformed signature',
      ['X-Hub-Signature-256: sha256=abc', 'Content-Type: application/json', 'Content-Length: 1000'],
      401,
      'X-Hub-Signature-256 is not one sha256=<64 hex digits>',
    ],
    [
      'a wrong content type',
      [`X-Hub-Signature-256: ${sign('x')}`, 'Content-Type: text/plain', 'Content-Length: 1000'],
      415,
      'content type is not application/json or application/x-www-form-urlencoded',
    ],
    [
      'no Content-Length (a chunked body)',
      [`X-Hub-Signature-256: ${sign('x')}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      411,
      'no Content-Length',
    ],
    [
      'a Content-Length over the limit',
      [`X-Hub-Signature-256: ${sign('x')}`, 'Content-Type: application/json', 'Content-Length: 1048577'],
      413,
      'body over 1048576 bytes',
    ],
  ])('%s is refused before its body is sent, and the connection closed', async (_what, headers, status, why) => {
    const l = await listener();
    const c = open(l.port);
    c.socket.write(head(headers));
    expect(await c.status()).toBe(status);
    await until('the connection closed', () => c.closed());
    expect(l.refused).toEqual([why]);
  });

  it('no secret configured: every delivery is refused before its body is read', async () => {
    const l = await listener({}, null);
    const c = open(l.port);
    c.socket.write(
      head([`X-Hub-Signature-256: ${sign(push)}`, 'Content-Type: application/json', 'Content-Length: 100']),
    );
    expect(await c.status()).toBe(401);
    expect(l.refused).toEqual(['no webhook secret configured']);
  });

  it('bodies are read within a byte budget: past it a delivery is 503 (Retry-After), not held', async () => {
    const l = await listener({ pendingBytes: 3000 });
    const declared = [`X-Hub-Signature-256: ${sign('x')}`, 'Content-Type: application/json', 'Content-Length: 1000'];
    const slow = [open(l.port), open(l.port), open(l.port)];
    for (const c of slow) await c.send(`${head(declared)}{`);
    // Their heads were with the server before this probe connected: once it is answered, they hold the budget.
    expect(await healthz(l.port)).toBe(200);
    const fourth = open(l.port);
    await fourth.send(head(declared));
    expect(await fourth.status()).toBe(503);
    expect(fourth.received()).toMatch(/\r\nretry-after: 10\r\n/i);
    expect(l.refused).toEqual(['too many deliveries being read at once']);
    expect(slow.map((c) => c.received())).toEqual(['', '', '']);
    // One body finished (a wrong signature) frees its share: the next delivery is read and checked.
    await slow[0].send('x'.repeat(999));
    expect(await slow[0].status()).toBe(401);
    const next = open(l.port);
    await next.send(`${head(declared)}${'y'.repeat(1000)}`);
    expect(await next.status()).toBe(401);
    expect(l.refused.slice(1)).toEqual(['wrong signature', 'wrong signature']);
  });

  it('a body that does not arrive within the body timeout: 408 and the connection closed', async () => {
    const l = await listener({ bodyTimeoutMs: 200 });
    const c = open(l.port);
    c.socket.write(
      `${head([`X-Hub-Signature-256: ${sign(push)}`, 'Content-Type: application/json', 'Content-Length: 500'])}{"ref"`,
    );
    expect(await c.status()).toBe(408);
    await until('the connection closed', () => c.closed());
    expect(l.refused).toEqual(['body not received within 200 ms']);
    expect(l.triggered()).toBe(0);
  });

  it('past the connection limit the oldest idle connection is closed: /healthz still answers', async () => {
    const l = await listener({ connections: 8, graceMs: 0 });
    const idle = Array.from({ length: 20 }, () => open(l.port));
    await until('the oldest closed', () => idle.filter((c) => c.closed()).length >= 12);
    expect(await healthz(l.port)).toBe(200);
    // The newest stay: the ones closed are the first opened.
    expect(idle.slice(0, 12).every((c) => c.closed())).toBe(true);
  });

  it('a connection younger than the grace is not closed to make room (a probe in a burst keeps its own)', async () => {
    const l = await listener({ connections: 8, graceMs: 600_000 });
    const young = Array.from({ length: 20 }, () => open(l.port));
    for (const c of young) await c.send('');
    expect(await healthz(l.port)).toBe(200);
    expect(young.filter((c) => c.closed())).toEqual([]);
  });

  it.each([
    ['trailing characters', (s: string) => [`X-Hub-Signature-256: ${s}00`]],
    ['two headers (joined with a comma)', (s: string) => [`X-Hub-Signature-256: ${s}`, `X-Hub-Signature-256: ${s}`]],
  ])('a signature with %s is refused: 401, no run', async (_what, signature) => {
    const l = await listener();
    const c = open(l.port);
    c.socket.write(
      `${head([...signature(sign(push)), 'Content-Type: application/json', `Content-Length: ${push.length}`])}${push}`,
    );
    expect(await c.status()).toBe(401);
    expect(l.triggered()).toBe(0);
  });

  it('exactly one right signature: 202 and a run', async () => {
    const l = await listener();
    const c = open(l.port);
    c.socket.write(
      `${head([`X-Hub-Signature-256: ${sign(push)}`, 'Content-Type: application/json; charset=utf-8', `Content-Length: ${push.length}`])}${push}`,
    );
    expect(await c.status()).toBe(202);
    expect(l.triggered()).toBe(1);
    expect(l.refused).toEqual([]);
  });
});
