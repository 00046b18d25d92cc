// Crash safety: the built CLI, as its own process, killed with SIGKILL at random moments of an apply and run again.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { seededRandom, type Emulator } from '../../src/emulator/server.js';
import { finished, runBin, startBin } from '../helpers/bin.js';
import { testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('20 applies killed with SIGKILL at random moments, each rerun: the platform ends exactly as declared', async () => {
  emu = await emulator(
    { vods: Array.from({ length: 15 }, (_, i) => ({ id: `vod${i}`, project_id: 'p', name: 'Old' })) },
    { latencyMs: 4 },
  );
  const dir = testdir({});
  const stateFile = join(dir, '.tapedeck/default.state.json');
  const random = seededRandom(99);
  let killedMidWrite = 0;
  for (let round = 0; round < 20; round++) {
    const documents = [
      ...Array.from({ length: 15 }, (_, i) => ({
        kind: 'Vod',
        name: `v${i}`,
        id: `vod${i}`,
        spec: { name: `round ${round}` },
      })),
      ...Array.from({ length: 3 * (round + 1) }, (_, i) => ({
        kind: 'Offer',
        name: `o${i}`,
        spec: { project_id: 'p', name: `Offer ${i}` },
      })),
    ];
    writeFileSync(join(dir, 'all.yaml'), documents.map((d) => stringify(d)).join('---\n'));
    const writesBefore = emu.stats.writes;
    const victim = startBin(['apply', dir, '--base-url', emu.url, '--yes'], dir);
    const exited = finished(victim);
    // Kill at a random moment once the apply has started writing (or, now and then, while it is still reading).
    // The wait for the first write is bounded only so that an apply that never writes ends the round.
    const early = random() < 0.2;
    for (let waited = 0; !early && emu.stats.writes === writesBefore && waited < 10_000; waited += 5) await sleep(5);
    await sleep(Math.floor(random() * (early ? 800 : 120)));
    victim.kill('SIGKILL');
    await exited;
    if (emu.stats.writes > writesBefore) killedMidWrite++;
    // The state is never torn: it parses, or does not exist yet.
    const state = existsSync(stateFile) ? readFileSync(stateFile, 'utf8') : '{}';
    expect(() => JSON.parse(state), state).not.toThrow();
    const rerun = await runBin(['apply', dir, '--base-url', emu.url, '--yes'], dir);
    expect(rerun.code, rerun.stderr).toBe(0);
    const names = [...emu.store.collections.get('offers')!.values()].map((o) => o.name).sort();
    expect(names).toEqual(Array.from({ length: 3 * (round + 1) }, (_, i) => `Offer ${i}`).sort());
    expect([...emu.store.collections.get('vods')!.values()].every((v) => v.name === `round ${round}`)).toBe(true);
  }
  expect(killedMidWrite).toBeGreaterThan(5);
});
