// What a server cannot make the client do: read an endless answer, or follow a list forever. The limits are the
// real ones but for the answer size, made small here (1 MiB) so the test sends little.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { Client, defaultClientOptions, type Caller } from '../../src/remote/client.js';
import { listAll, MAX_LIST_PAGES } from '../../src/live/list.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('answer size', () => {
  it.each([
    [
      'a stream past the limit, without a length',
      undefined,
      /the answer passed the limit of 1048576 bytes; reading stopped there/,
    ],
    [
      'a length over the limit',
      String(2 ** 40),
      /the answer is 1099511627776 bytes, over the limit of 1048576; not read/,
    ],
  ])('%s: refused, not retried', async (_, length, message) => {
    let hits = 0;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const url = await serve((req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json', ...(length ? { 'content-length': length } : {}) });
      const more = () => {
        while (res.write(chunk));
      };
      res.on('drain', more);
      res.on('error', () => {});
      more();
    });
    const client = new Client({
      ...defaultClientOptions,
      baseUrl: url,
      token: 'tok-1234',
      maxResponseBytes: 1024 * 1024,
    });
    const failure = await client.call('GET', '/x').catch((e: unknown) => e);
    await client.close();
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).line()).toMatch(new RegExp(`^GET /x: 200 response_too_large: ${message.source}$`));
    expect(hits).toBe(1);
  });
});

describe('lists', () => {
  const list = { path: '/things', items: 'things', scope: [] };
  /** A platform in memory: page n of a list, with the token `next(n)` for the page after it. */
  const paging = (next: (n: number) => string) => {
    const caller = {
      calls: 0,
      // Past 20,000 pages it fails by itself, so a client without a bound fails this test instead of running out of memory.
      call: async () =>
        caller.calls > 20_000
          ? Promise.reject(new Error('runaway list'))
          : { status: 200, body: { things: [{ id: `t${caller.calls}` }], next_page_token: next(caller.calls++) } },
    };
    return caller as Caller & { calls: number };
  };

  it('a token seen before (a cycle, not only the last one) stops the list', async () => {
    const caller = paging((n) => ['a', 'b', 'c'][n % 3]);
    await expect(listAll(caller, list, {})).rejects.toThrow(/the list gave the page token "a" a second time/);
    expect(caller.calls).toBe(4);
  });

  it(`new tokens forever stop at ${MAX_LIST_PAGES} pages`, async () => {
    const caller = paging((n) => `p${n}`);
    await expect(listAll(caller, list, {})).rejects.toThrow(`the list goes on past ${MAX_LIST_PAGES} pages`);
    expect(caller.calls).toBe(MAX_LIST_PAGES);
  });
});
