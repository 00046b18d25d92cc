// A run whose database session ends mid-apply (failover, pg_terminate_backend, a pooler dropping it) has lost its
// advisory lock: it sends nothing more (another run may hold the lock now), reports every change not sent as not
// applied, and when the state cannot be saved still reports each resource's outcome and which ones the state does
// not record. A real PostgreSQL server, the real CLI in-process, the emulator behind a proxy that holds one answer
// back while the test ends the session (and lets another run apply).
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile, type TestPostgres } from '../helpers/postgres.js';
import { faultyProxy, type ProxyFault } from '../helpers/proxy.js';

const pg = (await postgresForFile('PostgreSQL lock-loss tests'))!;

let emu: Emulator | undefined;
let proxy: Awaited<ReturnType<typeof faultyProxy>> | undefined;
afterEach(async () => {
  await proxy?.close();
  await emu?.close();
  emu = proxy = undefined;
});

let schemas = 0;
const offers = (title: string) =>
  ['a', 'b', 'c'].map((n) => ({ kind: 'Offer', name: n, spec: { project_id: 'p', name: `${n} ${title}` } }));
const names = (e: Emulator) => [...(e.store.collections.get('offers')?.values() ?? [])].map((o) => o.name).sort();

/** Ends the session holding the state's advisory lock, and waits until the server has ended it. */
async function endLockSession(db: TestPostgres): Promise<void> {
  const [held] = await db.sql<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1`,
  );
  expect(held).toBeDefined();
  await db.sql('SELECT pg_terminate_backend($1)', [held.pid]);
  while ((await db.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [held.pid])).length)
    await new Promise((r) => setTimeout(r, 10));
}

/** The emulator behind a proxy: `onWrite(method, n)` may hold the answer of the n-th write (from 0) back. */
async function platform(onWrite: (method: string, n: number) => ProxyFault) {
  emu = await emulator();
  let writes = 0;
  proxy = await faultyProxy(emu.url, (req) => (req.method === 'GET' ? undefined : onWrite(req.method!, writes++)));
  return proxy.url;
}

describe.skipIf(!pg)("the lock's session ends mid-apply", () => {
  it('no write after the loss: another run takes the lock and finishes, and the platform ends as that run left it', async () => {
    const url = pg.url(`loss${++schemas}`);
    let armed = false;
    const other = testdir({ 'o.yaml': offers('v3'), 'tapedeck.yaml': 'version: 1\nname: shop\n' });
    let otherRun: Awaited<ReturnType<typeof runCli>> | undefined;
    const base = await platform((method) =>
      armed && method === 'PATCH'
        ? {
            then: async () => {
              armed = false;
              await endLockSession(pg);
              otherRun = await runCli(['apply', other, '--base-url', base, '--yes'], {
                cwd: other,
                env: { TAPEDECK_STATE_URL: url },
              });
            },
          }
        : undefined,
    );
    const env = { TAPEDECK_STATE_URL: url };
    const setup = testdir({ 'o.yaml': offers('v1'), 'tapedeck.yaml': 'version: 1\nname: shop\n' });
    expect((await runCli(['apply', setup, '--base-url', base, '--yes'], { cwd: setup, env })).code).toBe(0);
    const stale = testdir({ 'o.yaml': offers('v2'), 'tapedeck.yaml': 'version: 1\nname: shop\n' });
    armed = true;
    const run = await runCli(['apply', stale, '--base-url', base, '--yes', '--concurrency', '1', '--json'], {
      cwd: stale,
      env,
    });
    expect(otherRun?.code, otherRun?.stderr).toBe(0);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.results.map((r: { outcome: string }) => r.outcome)).toEqual(['applied', 'skipped', 'skipped']);
    for (const r of result.results.slice(1))
      expect(r.error).toMatch(/^not sent: the connection holding the lock on the state .* ended/);
    expect(result.summary).toMatchObject({ applied: 1, skipped: 2 });
    // The other run's writes stand: the stale one sent nothing after it lost the lock.
    expect(names(emu!)).toEqual(['a v3', 'b v3', 'c v3']);
    expect(run.stderr).toMatch(/error: the state could not be saved: .*\n.*does not record: Offer\/a \(off_/);
  });

  it('the database goes away mid-apply: every outcome is still reported, the ones the state does not record named', async () => {
    const url = pg.url(`loss${++schemas}`);
    const base = await platform((method, n) =>
      method === 'POST' && n === 1 ? { then: () => endLockSession(pg) } : undefined,
    );
    const dir = testdir({ 'o.yaml': offers('v1'), 'tapedeck.yaml': 'version: 1\nname: shop\n' });
    const run = await runCli(['apply', dir, '--base-url', base, '--yes', '--concurrency', '1', '--json'], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: url },
    });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.results).toEqual([
      { address: 'Offer/a', action: 'create', outcome: 'applied', id: expect.stringMatching(/^off_/) },
      {
        address: 'Offer/b',
        action: 'create',
        outcome: 'applied',
        id: expect.stringMatching(/^off_/),
        state_recorded: false,
      },
      {
        address: 'Offer/c',
        action: 'create',
        outcome: 'skipped',
        error: expect.stringMatching(/^not sent: /),
        error_code: 'E_NOT_SENT',
      },
    ]);
    // Heard from the client at once, or from the write that failed: either way, named.
    expect(result.state_error).toMatch(
      /the connection holding the lock on the state .* ended|the state database .* failed/,
    );
    expect(names(emu!)).toEqual(['a v1', 'b v1']);
    // The next run finds b by its pending marker (stored before it was sent) and creates only c.
    const again = await runCli(['apply', dir, '--base-url', base, '--yes', '--json', '--state', url], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(names(emu!)).toEqual(['a v1', 'b v1', 'c v1']);
  });
});
