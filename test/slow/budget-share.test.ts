// `share` of the limit the platform publishes, beside a client that is not tapedeck (issue 45): several processes of
// the built CLI started together on one PostgreSQL state, with `budget: {share: 0.5}`, against the emulator limiting
// every request to LIMIT a second and saying so in X-RateLimit-Limit; meanwhile another client (undici, not tapedeck)
// sends OTHER_RPS requests a second the whole time. Counted from the emulator's call log: tapedeck's requests in any
// one second stay at share × LIMIT at most, the other client is never refused, and every process finishes with all
// its documents read. A process that stalls is killed after a generous bound, and then counts as not finished.
import { afterEach, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import type { ChildProcess } from 'node:child_process';
import type { Emulator } from '../../src/emulator/server.js';
import { finished } from '../helpers/bin.js';
import { emulator } from '../helpers/emulator.js';
import { busiest, callsOf, fleetMember, fleetVods, refused, startPlan } from '../helpers/fleet.js';
import { postgresForFile } from '../helpers/postgres.js';

const pg = (await postgresForFile('budget share tests with PostgreSQL'))!;

const LIMIT = 200;
const SHARE = 0.5;
const OTHER_RPS = 100;
/** A run of N documents at its share takes seconds; one that has not ended after this stalled. */
const KILL_AFTER_MS = 150_000;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** The client that is not tapedeck: OTHER_RPS GETs a second, evenly, until stopped; its answers' statuses. */
function otherClient(url: string) {
  const pool = new Pool(url, { connections: 16 });
  const statuses: number[] = [];
  const sent: Promise<void>[] = [];
  let i = 0;
  const send = () =>
    pool
      .request({
        method: 'GET',
        path: `/streaming/vods/v1/other-${i++ % 10}`,
        headers: { authorization: 'Bearer dev-token' },
      })
      .then(async (r) => {
        statuses.push(r.statusCode);
        await r.body.dump();
      });
  const timer = setInterval(() => sent.push(send()), 1000 / OTHER_RPS);
  return {
    statuses,
    stop: async () => {
      clearInterval(timer);
      await Promise.allSettled(sent);
      await pool.close();
    },
  };
}

/** The process's run, SIGKILLed when it has not ended within KILL_AFTER_MS (a stall). */
async function bounded(child: ChildProcess) {
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  try {
    return await finished(child);
  } finally {
    clearTimeout(timer);
  }
}

describe.skipIf(!pg)('share of a published limit beside a client that is not tapedeck', () => {
  it('processes started together: never above share × the limit in a second, the other client never refused, all done', async () => {
    const tags = ['a', 'b', 'c', 'd'];
    const n = 200;
    emu = await emulator(
      { vods: [...tags.flatMap((t) => fleetVods(t, n)), ...fleetVods('other', 10)] },
      {
        rateLimits: [{ prefix: '', rps: LIMIT }],
        rateLimitHeaders: true,
        latencyMs: 5,
        callLogSize: 100_000,
        clock: undefined,
      },
    );
    const url = pg.url('share');
    const dirs = tags.map((t) => fleetMember(t, n, { share: SHARE }, url));
    const other = otherClient(emu.url);
    // The other client is under way before tapedeck starts, and goes on until the last process has ended.
    while (other.statuses.length < OTHER_RPS / 2) await new Promise((r) => setTimeout(r, 50));
    const runs = await Promise.all(tags.map((t, i) => bounded(startPlan(dirs[i], t, emu!.url))));
    await other.stop();
    const calls = emu.calls();
    // Every process ended by itself, having read each of its documents once.
    expect(runs.map((r) => r.code)).toEqual(tags.map(() => 0));
    for (const t of tags) expect(callsOf(calls, t).filter((c) => c.status === 200)).toHaveLength(n);
    const fleet = calls.filter((c) => !c.path.includes('/other-'));
    expect(busiest(fleet)).toBeLessThanOrEqual(SHARE * LIMIT);
    expect(refused(fleet)).toHaveLength(0);
    // The other client was never refused, neither as it counted its answers nor in the emulator's log.
    expect(other.statuses.length).toBeGreaterThan(OTHER_RPS);
    expect(other.statuses.filter((s) => s !== 200)).toEqual([]);
    expect(refused(callsOf(calls, 'other'))).toHaveLength(0);
  });
});
