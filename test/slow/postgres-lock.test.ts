// The database state's lock between processes: the built CLI, each apply its own process, against a real
// PostgreSQL server (test/helpers/postgres.ts) and the emulator. Two applies at once never both write; an apply
// killed with SIGKILL while it holds the lock leaves nothing behind that stops the next one.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { bin, finished, start } from '../helpers/bin.js';
import { testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';

// Undefined where the server cannot start: then every describe below is skipped, and one skipped test says why.
const pg = (await postgresForFile('PostgreSQL lock tests'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const offers = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'Offer',
    name: `o${i}`,
    spec: { project_id: 'p', name: `Offer ${i}` },
  }));
const names = (e: Emulator) => [...(e.store.collections.get('offers')?.values() ?? [])].map((o) => o.name).sort();
const declared = (n: number) =>
  offers(n)
    .map((o) => o.spec.name)
    .sort();

describe.skipIf(!pg)('the database lock across processes', () => {
  let schemas = 0;
  const apply = (dir: string, url: string, ...extra: string[]) =>
    start(process.execPath, [bin, 'apply', dir, '--base-url', emu!.url, '--yes', ...extra], {
      cwd: dir,
      env: { TAPEDECK_TOKEN: 'dev-token', CI: '', TAPEDECK_STATE_URL: url },
    });

  it('two applies started at once: one writes, the other fails at once naming it; each resource is created once', async () => {
    emu = await emulator({}, { latencyMs: 60 });
    const schema = `lock${++schemas}`;
    const dir = testdir({ 'offers.yaml': offers(6) });
    const [a, b] = [apply(dir, pg.url(schema)), apply(dir, pg.url(schema))];
    const [ra, rb] = await Promise.all([finished(a), finished(b)]);
    expect([ra.code, rb.code].sort()).toEqual([0, 1]);
    const [winner, loser] = ra.code === 0 ? [a, rb] : [b, ra];
    expect(loser.stderr).toMatch(
      new RegExp(
        `^error: the state postgres://.*:\\*\\*\\*@.* \\(environment default\\) is locked by another apply \\(host \\S+, pid ${winner.pid}, actor \\S+, since \\d{4}-`,
      ),
    );
    expect(names(emu)).toEqual(declared(6));
    expect(await pg.sql(`SELECT serial FROM ${schema}.history`)).toEqual([{ serial: '1' }]);
  });

  it('with --lock-timeout the second waits for the first, then finds nothing left to do', async () => {
    emu = await emulator({}, { latencyMs: 40 });
    const schema = `lock${++schemas}`;
    const dir = testdir({ 'offers.yaml': offers(6) });
    const runs = await Promise.all(
      [apply(dir, pg.url(schema), '--lock-timeout', '120'), apply(dir, pg.url(schema), '--lock-timeout', '120')].map(
        finished,
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs.map((r) => /Apply complete: 6 applied/.test(r.stdout)).sort()).toEqual([false, true]);
    expect(names(emu)).toEqual(declared(6));
    // The second, with nothing left to do, writes no version (an idle apply leaves the state as it was).
    const history = await pg.sql<{ serial: string }>(`SELECT serial FROM ${schema}.history ORDER BY serial`);
    expect(history.map((h) => h.serial)).toEqual(['1']);
  });

  it('an apply killed with SIGKILL while holding the lock: the next one proceeds at once and converges', async () => {
    emu = await emulator({}, { latencyMs: 30 });
    const schema = `lock${++schemas}`;
    const dir = testdir({ 'offers.yaml': offers(12) });
    const victim = apply(dir, pg.url(schema), '--concurrency', '1');
    const exited = finished(victim);
    // Killed once it holds the lock and has created something (the wait is bounded: an apply that never gets
    // there ends the test with the assertions below).
    for (let waited = 0; waited < 20_000; waited += 20) {
      const held = await pg.sql(`SELECT pid FROM ${schema}.locks`).catch(() => []);
      if (held.length && emu.stats.writes > 2) break;
      await sleep(20);
    }
    expect(await pg.sql(`SELECT pid FROM ${schema}.locks`)).toEqual([{ pid: victim.pid }]);
    victim.kill('SIGKILL');
    expect((await exited).code).toBe(-1);
    const created = names(emu).length;
    expect(created).toBeGreaterThan(0);
    expect(created).toBeLessThan(12);
    // No --lock-timeout: the lock must be free at once. The dead holder's row is still there, and is replaced.
    const next = await finished(apply(dir, pg.url(schema)));
    expect(next.code, next.stderr).toBe(0);
    expect(names(emu)).toEqual(declared(12));
    expect(await pg.sql(`SELECT * FROM ${schema}.locks`)).toEqual([]);
  });
});
