// The fleet's budget when its database goes away mid-run: a real PostgreSQL server of this file's own, stopped while
// a run of the built CLI holds a lease. The run goes on alone at its part of the last ceiling it saw (never above
// its share of the budget, as the emulator's call log counts it per second), says so once on stderr, and finishes.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { until } from '../helpers/agent.js';
import { finished } from '../helpers/bin.js';
import { emulator } from '../helpers/emulator.js';
import { busiest, fleetMember, fleetVods, startPlan } from '../helpers/fleet.js';
import { postgresForFile } from '../helpers/postgres.js';

const pg = (await postgresForFile('budget fallback tests with PostgreSQL'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe.skipIf(!pg)('the database stopped mid-run', () => {
  it('falls back to its part of the budget, says so once, and finishes', async () => {
    const n = 240;
    emu = await emulator({ vods: fleetVods('f', n) }, { latencyMs: 5, callLogSize: 100_000, clock: undefined });
    const run = startPlan(fleetMember('f', n, { max_rps: 40 }, pg.url('fallback')), 'f', emu.url);
    const done = finished(run);
    await until('the run to be well under way', () => emu!.calls().length >= 60, 60_000);
    const stoppedAt = Date.now();
    await pg.stop();
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).summary.noop).toBe(n);
    const said = result.stderr.split('\n').filter((l) => l.includes("the API budget's store"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/cannot be reached .*: pacing alone at 38\.0 requests\/s/);
    // Alone, it never went over its part of the budget (all of it: it was the only holder).
    const after = emu.calls().filter((c) => c.at >= stoppedAt);
    expect(after.length).toBeGreaterThan(0);
    expect(busiest(after)).toBeLessThanOrEqual(40);
    expect(busiest(emu.calls())).toBeLessThanOrEqual(40);
  });
});
