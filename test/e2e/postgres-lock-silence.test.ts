// A run whose database connection goes silent (a network cut, a failover to a host that is simply gone: no packet,
// no RST) cannot confirm its lock, and stops writing: the server ended its session and freed the lock, another run
// took it and applied, and the first run's later writes would put back its older values. A real PostgreSQL server
// behind a TCP proxy that goes silent, the real CLI in-process, the emulator behind a proxy that holds one answer
// back while the test cuts the connection and lets another run apply.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';
import { faultyProxy, type ProxyFault } from '../helpers/proxy.js';
import { tcpProxy, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const pg = (await postgresForFile('PostgreSQL lock-silence tests'))!;

/** The bound the runs of this file are given (TAPEDECK_LOCK_BOUND_MS): short, so the cut is noticed soon. */
const BOUND_MS = 1500;

let emu: Emulator | undefined;
let proxy: Awaited<ReturnType<typeof faultyProxy>> | undefined;
let cut: TcpProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await cut?.close();
  await emu?.close();
  emu = proxy = cut = undefined;
});

let schemas = 0;
const project = (title: string) => ({
  'o.yaml': ['a', 'b', 'c'].map((n) => ({ kind: 'Offer', name: n, spec: { project_id: 'p', name: `${n} ${title}` } })),
  'tapedeck.yaml': 'version: 1\nname: shop\n',
});
const names = (e: Emulator) => [...(e.store.collections.get('offers')?.values() ?? [])].map((o) => o.name).sort();

/** Waits until no session holds an advisory lock: the server has ended the cut one. */
async function lockFreed(): Promise<void> {
  while ((await pg.sql(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1`)).length)
    await sleep(10);
}

describe.skipIf(!pg)("the lock's connection goes silent mid-apply", () => {
  it('no write after the cut is sent: another run applies, the platform holds what it applied, its next plan is empty', async () => {
    const url = pg.url(`silence${++schemas}`);
    cut = await tcpProxy({ host: '127.0.0.1', port: pg.port });
    emu = await emulator();
    let armed = false;
    const other = testdir(project('v3'));
    let otherRun: Awaited<ReturnType<typeof runCli>> | undefined;
    let cutAt = 0;
    proxy = await faultyProxy(emu.url, (req): ProxyFault => {
      if (!armed || req.method !== 'PATCH') return undefined;
      armed = false;
      return {
        then: async () => {
          cut!.silence();
          cutAt = Date.now();
          await lockFreed();
          otherRun = await runCli(['apply', other, '--base-url', proxy!.url, '--yes'], {
            cwd: other,
            env: { TAPEDECK_STATE_URL: url },
          });
          // Past the bound since the cut: whatever the first run sends now rests on a confirmation after it.
          await sleep(Math.max(0, BOUND_MS - (Date.now() - cutAt)));
        },
      };
    });
    const base = proxy.url;
    const setup = testdir(project('v1'));
    const env = { TAPEDECK_STATE_URL: url };
    expect((await runCli(['apply', setup, '--base-url', base, '--yes'], { cwd: setup, env })).code).toBe(0);
    const [before] = await pg.sql<{ serial: number }>(`SELECT serial FROM silence${schemas}.states`);

    const stale = testdir(project('v2'));
    armed = true;
    const run = await runCli(['apply', stale, '--base-url', base, '--yes', '--concurrency', '1', '--json'], {
      cwd: stale,
      env: { TAPEDECK_STATE_URL: throughProxy(url, cut), TAPEDECK_LOCK_BOUND_MS: String(BOUND_MS) },
    });
    expect(otherRun?.code, otherRun?.stderr).toBe(0);
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.results.map((r: { outcome: string }) => r.outcome)).toEqual(['applied', 'skipped', 'skipped']);
    for (const r of result.results.slice(1)) {
      expect(r.error).toMatch(/^not sent: the lock on the state .* was not confirmed within \d+ ms/);
      expect(r.error_code).toBe('E_NOT_SENT');
    }
    expect(result.summary).toMatchObject({ applied: 1, skipped: 2 });
    expect(result.state_error).toMatch(/the lock on the state .* was not confirmed/);
    expect(result.state_error_code).toBe('E_LOCKED');

    // The other run's writes stand, and the state is the one it wrote: the cut run wrote neither.
    expect(names(emu)).toEqual(['a v3', 'b v3', 'c v3']);
    const [after] = await pg.sql<{ serial: number }>(`SELECT serial FROM silence${schemas}.states`);
    expect(Number(after.serial)).toBe(Number(before.serial) + 1);
    const plan = await runCli(['plan', other, '--base-url', base, '--json'], { cwd: other, env });
    expect(plan.code, plan.stderr).toBe(0);
    const next = JSON.parse(plan.stdout);
    expect(next.changes.map((c: { action: string }) => c.action)).toEqual(['noop', 'noop', 'noop']);
  });
});
