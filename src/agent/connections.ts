// The listener's connections, bounded: an unauthenticated caller can open many and send nothing, or send slowly.
// Each is cheap (no body is held for it: see listener.ts), idle ones are closed after a few seconds, and past
// the limit the oldest idle one is closed to make room, so a flood cannot keep /healthz or /metrics from
// answering: the newer connections (a probe's) are the ones that stay.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { MAX_HOOK_BODY } from './webhook.js';

export interface ListenLimits {
  /** open connections past which the oldest idle one is closed for each new one */
  connections: number;
  /** a connection younger than this is never closed to make room: a burst of connections accepted together (a
   *  flood, and a probe among them) would otherwise close the probe's before its request is read */
  graceMs: number;
  /** bytes held at once for deliveries not yet authenticated: a few bodies in flight, never one per connection */
  pendingBytes: number;
  /** a delivery's body arrives within this or the connection is closed (GitHub itself waits 10 s for an answer) */
  bodyTimeoutMs: number;
  /** connections the kernel queues before they are accepted (Linux caps it at net.core.somaxconn) */
  backlog: number;
}

export const LIMITS: ListenLimits = {
  connections: 1024,
  graceMs: 2_000,
  pendingBytes: 4 * MAX_HOOK_BODY,
  bodyTimeoutMs: 10_000,
  backlog: 4096,
};
/** Headers must be complete within this; the whole request within REQUEST_TIMEOUT_MS. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;
/** A connection with nothing sent or received for this long is closed (a kept-alive one after KEEP_ALIVE_MS). */
const IDLE_TIMEOUT_MS = 15_000;
const KEEP_ALIVE_MS = 5_000;
/** Past `connections` times this, new connections are refused outright: the bound on sockets when all are young. */
const HARD_LIMIT_FACTOR = 4;
/** How often Node checks the two request timeouts (its default, 30 s, would let a header trickle go on 40 s). */
export const TIMEOUT_CHECK_MS = 1_000;

export function boundConnections(server: Server, { connections: max, graceMs }: ListenLimits): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.maxConnections = max * HARD_LIMIT_FACTOR;
  server.setTimeout(IDLE_TIMEOUT_MS, (socket: Socket) => socket.destroy());
  // In the order they came, with when: the first that is past its grace and not answering is the oldest idle one.
  const open = new Map<Socket, number>();
  const answering = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    const now = Date.now();
    open.set(socket, now);
    socket.once('close', () => {
      open.delete(socket);
      answering.delete(socket);
    });
    if (open.size <= max) return;
    for (const [old, since] of open) {
      if (now - since < graceMs) break; // all after it are younger still: none is closed
      if (answering.has(old)) continue;
      old.destroy();
      break;
    }
  });
  server.on('request', (req, res) => {
    answering.add(req.socket);
    res.once('close', () => answering.delete(req.socket));
  });
}
