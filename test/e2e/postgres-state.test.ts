// The database state against a real PostgreSQL server (test/helpers/postgres.ts): tables made on first use, the
// history, compare-and-set writes, the lock and its holder, pull and push, and the password kept out of every
// output. The process-level cases (two applies at once, a SIGKILLed holder) are in test/slow/postgres-lock.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { openBackend, writerOf, type StateLocation } from '../../src/state/backend.js';
import { parsePgUrl } from '../../src/state/postgres-url.js';
import { State } from '../../src/state/state.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { startPostgres } from '../helpers/postgres.js';

const server = await startPostgres();
afterAll(() => (server.ok ? server.pg.stop() : undefined));
if (!server.ok) it.skip(`PostgreSQL state tests skipped: ${server.reason}`, () => {});

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

let schemas = 0;
/** A schema of its own for each test: the tests never see each other's states. */
const fresh = () => `t${++schemas}_${process.pid}`;
const offer = (name: string, title = name) => ({ kind: 'Offer', name, spec: { project_id: 'p', name: title } });

const location = (url: string): StateLocation => ({ kind: 'postgres', pg: parsePgUrl(url, 'test', {}) });
const backendFor = (url: string, environment = 'default') => openBackend(location(url), { environment, writer: writerOf({ TAPEDECK_ACTOR: 'test' }), timeoutMs: 10_000 });

describe.skipIf(!server.ok)('the PostgreSQL state', () => {
  const pg = server.ok ? server.pg : undefined!;

  it('is made on first use; each apply adds a history row: serial, when, who, host, version, configuration hash', async () => {
    emu = await emulator();
    const schema = fresh();
    const url = pg.url(schema);
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const env = { TAPEDECK_STATE_URL: url, TAPEDECK_ACTOR: 'alice' };
    const first = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(join(dir, 'a.yaml'), [offer('a'), offer('b')].map((d) => JSON.stringify(d)).join('\n---\n'));
    const second = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir, env: { ...env, TAPEDECK_ACTOR: 'bob' } });
    expect(second.code, second.stderr).toBe(0);
    expect(await pg.sql(`SELECT version FROM ${schema}.schema_migrations`)).toEqual([{ version: 1 }]);
    const history = await runCli(['state', 'history', dir, '--json'], { cwd: dir, env });
    const rows = JSON.parse(history.stdout);
    expect(rows).toEqual([
      expect.objectContaining({ serial: 2, actor: 'bob', host: hostname(), command: 'apply', configuration_hash: expect.stringMatching(/^[0-9a-f]{64}$/), tapedeck_version: expect.any(String) }),
      expect.objectContaining({ serial: 1, actor: 'alice', host: hostname(), command: 'apply' }),
    ]);
    expect(rows[0].configuration_hash).not.toBe(rows[1].configuration_hash);
    expect(rows[0].lineage).toBe(rows[1].lineage);
    const text = await runCli(['state', 'history', dir], { cwd: dir, env });
    expect(text.stdout).toMatch(new RegExp(`^SERIAL +WRITTEN +BY +HOST +TAPEDECK +COMMAND +CONFIGURATION\\n2 +\\d{4}-\\d\\d-\\d\\dT[^ ]+ +bob +${hostname()} +\\S+ +apply \\(\\d writes\\) +[0-9a-f]{12}\\n1 `));
    // The state is where the next run finds it: the plan has nothing to do, and names the database, masked.
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir, env });
    expect(plan.stdout).toContain(`state postgres://${pg.user}:***@127.0.0.1:${pg.port}/postgres?schema=${schema}`);
    expect(plan.stdout).toMatch(/No changes\. 2 resources up to date\./);
    const list = await runCli(['state', 'list', dir], { cwd: dir, env });
    expect(list.stdout).toMatch(/^Offer\/a\toff_\w+\nOffer\/b\toff_\w+\n$/);
  });

  it('a plan against an empty database reads an empty state and creates nothing there', async () => {
    emu = await emulator();
    const schema = fresh();
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--state', pg.url(schema), '--json'], { cwd: dir });
    expect(JSON.parse(plan.stdout).summary.create).toBe(1);
    expect(await pg.sql('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).toEqual([]);
  });

  it('every write is a compare-and-set: a writer whose read is out of date is refused, and writes nothing', async () => {
    const url = pg.url(fresh());
    const [a, b] = [await backendFor(url), await backendFor(url)];
    const [one, two] = [await State.open(a), await State.open(b)];
    one.set('Offer/a', { kind: 'Offer', id: 'o1' });
    await one.save();
    two.set('Offer/b', { kind: 'Offer', id: 'o2' });
    await expect(two.save()).rejects.toThrow(/was written by another run since this one read it \(it is at serial 1, written \d{4}-.*\); nothing was written: run again/);
    // The first writer goes on writing its own version; the second never got in.
    one.set('Offer/c', { kind: 'Offer', id: 'o3' });
    await one.save();
    await Promise.all([a.close(), b.close()]);
    const reader = await backendFor(url);
    const now = await State.open(reader);
    await reader.close();
    expect(Object.keys(now.data.resources)).toEqual(['Offer/a', 'Offer/c']);
    expect(now.data.serial).toBe(1);
  });

  it('saves asked for while one is on its way become one write, of everything asked for until it starts', async () => {
    const url = pg.url(fresh());
    const backend = await backendFor(url);
    const state = await State.open(backend);
    await Promise.all(Array.from({ length: 20 }, (_, i) => {
      state.set(`Offer/o${i}`, { kind: 'Offer', id: `id${i}` });
      return state.save();
    }));
    await backend.close();
    const [row] = await pg.sql<{ version: string; n: number }>(`SELECT version, json_array_length(json_agg(k)) AS n FROM ${url.split('schema=')[1]}.states, json_object_keys(document->'resources') k GROUP BY version`);
    expect(Number(row.n)).toBe(20);
    expect(Number(row.version)).toBeLessThanOrEqual(3);
  });

  it('a file state has no history: said in one line', async () => {
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const run = await runCli(['state', 'history', dir], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: the state file .* keeps no history: only a database state does/) });
  });

  it('tables from a newer tapedeck are refused, naming what to do', async () => {
    const schema = fresh();
    const backend = await backendFor(pg.url(schema));
    await backend.lock(0);
    await backend.close();
    await pg.sql(`INSERT INTO ${schema}.schema_migrations (version, tapedeck_version) VALUES (99, 'future')`);
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const run = await runCli(['state', 'list', dir, '--state', pg.url(schema)], { cwd: dir });
    expect(run.stderr).toMatch(/holds tapedeck's tables at version 99; this tapedeck \(.*\) knows versions up to 1: upgrade tapedeck/);
  });
});

describe.skipIf(!server.ok)('the lock', () => {
  const pg = server.ok ? server.pg : undefined!;

  it('a second apply fails at once naming the holder; with --lock-timeout it waits for it', async () => {
    emu = await emulator();
    const url = pg.url(fresh());
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const holder = await backendFor(url);
    await holder.lock(0);
    const refused = await runCli(['apply', ...against(emu.url, dir), '--yes', '--state', url], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`is locked by another apply \\(host ${hostname()}, pid ${process.pid}, actor test, since \\d{4}-[^)]+\\); wait for it, or pass --lock-timeout SECONDS`));
    expect(emu.stats.writes).toBe(0);
    setTimeout(() => void holder.close(), 300);
    const waited = await runCli(['apply', ...against(emu.url, dir), '--yes', '--state', url, '--lock-timeout', '20'], { cwd: dir });
    expect(waited.code, waited.stderr).toBe(0);
    expect(emu.stats.writes).toBe(1);
    // Released with the run: the holder's row is gone, and the next one takes the lock at once.
    expect(await pg.sql(`SELECT * FROM ${url.split('schema=')[1]}.locks`)).toEqual([]);
    const again = await runCli(['state', 'forget', 'Offer/a', dir, '--state', url], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
  });
});
