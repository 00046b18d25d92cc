// The emulator's --rate-limit over HTTP: a request finding its bucket empty is answered 429 with Retry-After and the
// X-RateLimit headers, before anything is handled, and is in the call log; the flag's values are checked.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { call, emulator, emulatorCommand } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const seed = {
  banners: [{ id: 'b1', project_id: 'p', name: 'Top' }],
  vods: [{ id: 'v1', project_id: 'p', name: 'Replay' }],
};
const rateHeaders = (res: { headers: Headers }) =>
  Object.fromEntries(
    ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((n) => [
      n,
      res.headers.get(n),
    ]),
  );

describe('--rate-limit', () => {
  it('a request past the limit is answered 429 with Retry-After and the X-RateLimit headers, and changes nothing', async () => {
    // One request a second under /cms/: the second comes well within the second.
    emu = await emulator(seed, { rateLimits: [{ prefix: '/cms/', rps: 1 }] });
    const first = await call(emu, 'PATCH', '/cms/banners/v1/b1', {
      banner_update: { name: 'Changed' },
      update_mask: 'name',
    });
    const second = await call(emu, 'PATCH', '/cms/banners/v1/b1', {
      banner_update: { name: 'Again' },
      update_mask: 'name',
    });
    const outside = await call(emu, 'GET', '/streaming/vods/v1/v1');
    expect(first.status).toBe(200);
    expect(rateHeaders(first)).toEqual({
      'retry-after': null,
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
    expect(second).toMatchObject({
      status: 429,
      body: { code: 'resource_exhausted', message: expect.stringMatching(/rate limit/) },
    });
    expect(rateHeaders(second)).toEqual({
      'retry-after': '1',
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
    expect(outside.status).toBe(200);
    expect(rateHeaders(outside)).toEqual({
      'retry-after': null,
      'x-ratelimit-limit': null,
      'x-ratelimit-remaining': null,
      'x-ratelimit-reset': null,
    });
    expect((await call(emu, 'GET', '/streaming/vods/v1/v1')).status).toBe(200);
    expect(emu.calls().map((c) => [c.method, c.status, c.stored])).toEqual([
      ['PATCH', 200, true],
      ['PATCH', 429, false],
      ['GET', 200, false],
      ['GET', 200, false],
    ]);
    expect(emu.stats).toMatchObject({ reads: 2, writes: 1, limited: 1 });
    expect(emu.store.collections.get('banners')!.get('b1')!.name).toBe('Changed');
  });

  it('without its headers (a platform that publishes nothing): a 429 says Retry-After only', async () => {
    emu = await emulator(seed, { rateLimits: [{ prefix: '', rps: 1 }], rateLimitHeaders: false });
    const first = await call(emu, 'GET', '/streaming/vods/v1/v1');
    const second = await call(emu, 'GET', '/streaming/vods/v1/v1');
    expect([first.status, second.status]).toEqual([200, 429]);
    expect(rateHeaders(first)).toEqual({
      'retry-after': null,
      'x-ratelimit-limit': null,
      'x-ratelimit-remaining': null,
      'x-ratelimit-reset': null,
    });
    expect(rateHeaders(second)).toEqual({
      'retry-after': '1',
      'x-ratelimit-limit': null,
      'x-ratelimit-remaining': null,
      'x-ratelimit-reset': null,
    });
  });

  it('limits set while running start full (the benchmark warms the emulator up without them)', async () => {
    emu = await emulator(seed);
    expect(
      (await Promise.all([1, 2, 3].map(() => call(emu!, 'GET', '/streaming/vods/v1/v1')))).map((r) => r.status),
    ).toEqual([200, 200, 200]);
    emu.setRateLimits([{ prefix: '', rps: 2 }]);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(emu, 'GET', '/streaming/vods/v1/v1')).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('the command takes the flag, repeated, and refuses bad values', async () => {
    const dir = tempDir('tapedeck-emu-');
    const { url, stop } = await emulatorCommand(['--port', '0', '--rate-limit', '100', '--rate-limit', '/cms/=1'], dir);
    const get = async (path: string) =>
      (await fetch(`${url}${path}`, { headers: { authorization: 'Bearer dev-token' } })).status;
    expect([await get('/cms/events/v1'), await get('/cms/events/v1'), await get('/streaming/vods/v1/x')]).toEqual([
      200, 429, 404,
    ]);
    expect(await stop()).toBe(0);
    for (const [args, message] of [
      [
        ['--rate-limit', '-1'],
        'error: --rate-limit needs a whole number of requests per second from 1 to 1000000, not "-1"\n',
      ],
      [
        ['--rate-limit', 'cms=5'],
        'error: --rate-limit takes RPS or /PATH-PREFIX=RPS (the prefix starting with /), not "cms=5"\n',
      ],
      [['--rate-limit', '5', '--rate-limit', '6'], 'error: --rate-limit for every request is given twice\n'],
    ] as const) {
      expect(await runCli(['emulator', '--port', '0', ...args], { cwd: dir })).toMatchObject({
        code: 1,
        stderr: message,
      });
    }
  });
});
