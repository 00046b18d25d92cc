// The fleet's budget with file states: real processes of the built CLI whose states are in one directory share one
// bucket there (a lock file and a small JSON file). Counted from the emulator's call log: the requests the platform
// received in any one second stay under the budget while the runs overlap, and each run still reads everything.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { emulator } from '../helpers/emulator.js';
import { busiest, callsOf, fleetMember, fleetVods, refused, runAll, startPlan } from '../helpers/fleet.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('a budget shared through a file beside the states', () => {
  it('two runs at once stay under max_rps together in every second, and each reads all its documents', async () => {
    const n = 120;
    const tags = ['a', 'b'];
    emu = await emulator(
      { vods: tags.flatMap((t) => fleetVods(t, n)) },
      { latencyMs: 5, callLogSize: 100_000, clock: undefined },
    );
    const states = tempDir();
    mkdirSync(states, { recursive: true });
    const dirs = tags.map((t) => fleetMember(t, n, { max_rps: 40 }, join(states, `${t}.state.json`)));
    const runs = await runAll(tags.map((t, i) => startPlan(dirs[i], t, emu!.url)));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const calls = emu.calls();
    for (const t of tags) expect(callsOf(calls, t).filter((c) => c.status === 200)).toHaveLength(n);
    // They ran together: each started before the other was done.
    const [a, b] = tags.map((t) => callsOf(calls, t));
    expect(b[0].at).toBeLessThan(a.at(-1)!.at);
    expect(a[0].at).toBeLessThan(b.at(-1)!.at);
    expect(busiest(calls)).toBeLessThanOrEqual(40);
    expect(refused(calls)).toHaveLength(0);
    // The JSON says how long each waited on the budget: together they had to.
    const waits = runs.map((r) => JSON.parse(r.stdout).budget);
    for (const w of waits) expect(w.round_trips).toBeGreaterThan(0);
    expect(waits.reduce((s, w) => s + w.waited_ms, 0)).toBeGreaterThan(0);
  });
});
