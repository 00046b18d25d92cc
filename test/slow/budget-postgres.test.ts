// The fleet's budget through the state's database: real processes of the built CLI, a real PostgreSQL server, one
// emulator limiting every request (no X-RateLimit headers, as the live platform). Counted from the emulator's call
// log: the requests it received in any one second stay under the budget with all runs started together, and few or
// no 429s; a run SIGKILLed while it holds a lease gives its rate back when the lease ends; `budget status` names the
// holders while they run.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { until } from '../helpers/agent.js';
import { bin, finished, start } from '../helpers/bin.js';
import { emulator } from '../helpers/emulator.js';
import { busiest, callsOf, fleetMember, fleetVods, refused, runAll, startPlan } from '../helpers/fleet.js';
import { postgresForFile } from '../helpers/postgres.js';

const pg = (await postgresForFile('budget tests with PostgreSQL'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Holder = { pid: number; rate: number | null; until: number };
/** The holders in the budget's row; none before the first run made the table. */
const holdersOf = async (schema: string): Promise<Holder[]> => {
  const rows = await pg
    .sql<{ document: { holders: Record<string, Holder> } }>(`SELECT document FROM ${schema}.budgets`)
    .catch(() => []);
  return rows.length ? Object.values(rows[0].document.holders) : [];
};

describe.skipIf(!pg)('a budget shared through the state database', () => {
  it('four runs started together: under max_rps in every second, no 429, a round trip per batch of requests', async () => {
    const tags = ['a', 'b', 'c', 'd'];
    const n = 100;
    emu = await emulator(
      { vods: tags.flatMap((t) => fleetVods(t, n)) },
      {
        rateLimits: [{ prefix: '', rps: 50 }],
        rateLimitHeaders: false,
        latencyMs: 5,
        callLogSize: 100_000,
        clock: undefined,
      },
    );
    const url = pg.url('fleet');
    const dirs = tags.map((t) => fleetMember(t, n, { max_rps: 50 }, url));
    const runs = await runAll(tags.map((t, i) => startPlan(dirs[i], t, emu!.url)));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const calls = emu.calls();
    for (const t of tags) expect(callsOf(calls, t).filter((c) => c.status === 200)).toHaveLength(n);
    expect(busiest(calls)).toBeLessThanOrEqual(50);
    expect(refused(calls)).toHaveLength(0);
    const trips = runs.reduce((s, r) => s + JSON.parse(r.stdout).budget.round_trips, 0);
    // A lease is a batch: far fewer round trips than requests (the benchmark measures the ratio at scale).
    expect(trips * 10).toBeLessThanOrEqual(tags.length * n);
    // Every run released its lease as it ended.
    expect(await holdersOf('fleet')).toEqual([]);
  });

  it('a run SIGKILLed while it holds a lease: its rate comes back to the others when the lease ends', async () => {
    emu = await emulator(
      { vods: [...fleetVods('k', 400), ...fleetVods('s', 300)] },
      { latencyMs: 5, callLogSize: 100_000, clock: undefined },
    );
    const url = pg.url('killed');
    const killed = startPlan(fleetMember('k', 400, { max_rps: 40 }, url), 'k', emu.url);
    const done = finished(killed);
    await until('the first run to hold a lease', async () =>
      (await holdersOf('killed')).some((h) => h.pid === killed.pid && h.rate),
    );
    const survivor = startPlan(fleetMember('s', 300, { max_rps: 40 }, url), 's', emu.url);
    const survived = finished(survivor);
    await until('both to hold leases', async () => (await holdersOf('killed')).filter((h) => h.rate).length === 2);
    // `budget status` names both holders while they run.
    const statusDir = fleetMember('k', 0, { max_rps: 40 }, url);
    const status = await finished(
      start(process.execPath, [bin, 'budget', 'status', statusDir, '--env', 'k', '--base-url', emu.url, '--json'], {
        env: { TAPEDECK_TOKEN: 'dev-token' },
      }),
    );
    expect(status.code, status.stderr).toBe(0);
    const view = JSON.parse(status.stdout);
    expect(view.holders.map((h: { pid: number }) => h.pid).sort()).toEqual([killed.pid, survivor.pid].sort());
    expect(view.ceiling_rps).toBeCloseTo(38);
    killed.kill('SIGKILL');
    expect((await done).code).toBe(-1);
    // The dead run's lease is dropped once it ends, and the survivor holds the whole ceiling alone.
    await until('the survivor to hold the whole budget', async () => {
      const holders = await holdersOf('killed');
      return holders.length === 1 && holders[0].pid === survivor.pid && (holders[0].rate ?? 0) > 37;
    });
    const run = await survived;
    expect(run.code, run.stderr).toBe(0);
    expect(callsOf(emu.calls(), 's').filter((c) => c.status === 200)).toHaveLength(300);
    expect(busiest(emu.calls())).toBeLessThanOrEqual(40);
  });
});
