import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Drop the connection before or after forwarding, or answer with a status (after forwarding, or instead of it). */
export type ProxyFault =
  | 'drop_after'
  | 'drop_before'
  | { status: number; forward: boolean }
  | { delayMs: number }
  /** forwarded, and its answer held back until `then` (what the test does meanwhile) has finished */
  | { then: () => Promise<void> }
  | undefined;

const answerWith = (res: import('node:http').ServerResponse, status: number) =>
  res
    .writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) })
    .end(
      JSON.stringify(
        status < 300
          ? {}
          : {
              code: status === 429 ? 'resource_exhausted' : 'unavailable',
              message: 'injected by the test proxy',
              details: [],
            },
      ),
    );

/**
 * A loopback proxy in front of the emulator that injects one chosen fault into chosen requests: `decide` sees
 * each request (method, path, and how many came before) and says whether to drop it before or after forwarding.
 */
export async function faultyProxy(target: string, decide: (req: IncomingMessage, n: number) => ProxyFault) {
  let n = 0;
  const server: Server = createServer((req, res) => {
    const fault = decide(req, n++);
    if (fault === 'drop_before') return void req.socket.destroy();
    if (typeof fault === 'object' && 'status' in fault && !fault.forward)
      return void req.resume().on('end', () => answerWith(res, fault.status));
    const up = new URL(req.url ?? '/', target);
    const out = request(up, { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        if (fault === 'drop_after') return void req.socket.destroy();
        if (typeof fault === 'object' && 'status' in fault) return void answerWith(res, fault.status);
        const pass = () => res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
        if (typeof fault === 'object' && 'then' in fault) void fault.then().then(pass);
        else if (typeof fault === 'object') setTimeout(pass, fault.delayMs);
        else pass();
      });
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
