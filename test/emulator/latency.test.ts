// The emulator's latency (--latency, setLatency), read off the clock the emulator itself waits on: setTimeout and
// performance.now are faked, so time moves only when the test moves it and a busy machine cannot change the outcome.
import { request, type ServerResponse } from 'node:http';
import { afterEach, expect, it, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await emu?.close();
  emu = undefined;
});

/** A GET over node:http (it uses no global setTimeout, so every faked timer is the emulator's); its status. */
const get = (e: Emulator, path: string) =>
  new Promise<number>((done, fail) => {
    request(`${e.url}${path}`, { headers: { authorization: 'Bearer dev-token' } }, (res) => {
      res.resume().on('end', () => done(res.statusCode!));
    })
      .on('error', fail)
      .end();
  });
/** One turn of the real event loop (setImmediate is not faked): sockets move on, the emulator's clock does not. */
const turn = () => new Promise((r) => setImmediate(r));

/**
 * Sends GETs of `paths` all at once and, once the emulator holds every answer on a timer, moves its clock on by
 * `ms` - 1 and then by 1: how many answers were waiting, how many had been written after `ms` - 1 and after `ms`.
 */
async function answersAfter(e: Emulator, ms: number, paths: string[]) {
  const answers: ServerResponse[] = [];
  e.server.prependListener('request', (_, res) => answers.push(res));
  const statuses = Promise.all(paths.map((p) => get(e, p)));
  for (let i = 0; vi.getTimerCount() < paths.length && i < 100_000; i++) await turn();
  const waiting = vi.getTimerCount();
  const written = async (by: number) => {
    await vi.advanceTimersByTimeAsync(by);
    await turn();
    return answers.filter((r) => r.writableEnded).length;
  };
  const early = await written(ms - 1);
  const onTime = await written(1);
  return { waiting, early, onTime, statuses: await statuses };
}

it("--latency holds every answer for that long on the emulator's clock, never less (a millisecond early would flatter every client by 5%)", async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
  emu = await emulator({ vods: [{ id: 'v1', name: 'x' }] }, { latencyMs: 20 });
  const paths = Array.from({ length: 40 }, (_, i) => (i % 2 ? '/cms/events/v1' : '/streaming/vods/v1/v1'));
  expect(await answersAfter(emu, 20, paths)).toEqual({
    waiting: 40,
    early: 0,
    onTime: 40,
    statuses: paths.map(() => 200),
  });
});

it('latency can be changed while running (the benchmark warms the emulator up without it)', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
  emu = await emulator({}, { latencyMs: 0 });
  // Without latency an answer waits on no timer: it comes while the clock stands still.
  expect(await get(emu, '/cms/events/v1')).toBe(200);
  emu.setLatency(60);
  expect(await answersAfter(emu, 60, ['/cms/events/v1'])).toEqual({ waiting: 1, early: 0, onTime: 1, statuses: [200] });
});
