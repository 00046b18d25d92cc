// The database state against a real PostgreSQL server (test/helpers/postgres.ts): tables made on first use, the
// history, compare-and-set writes, the lock and its holder, pull and push, and the password kept out of every
// output. The process-level cases (two applies at once, a SIGKILLed holder) are in test/slow/postgres-lock.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { openBackend, writerOf, type StateLocation } from '../../src/state/backend.js';
import { parsePgUrl } from '../../src/state/postgres-url.js';
import { State } from '../../src/state/state.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';

// Undefined where the server cannot start: then every describe below is skipped, and one skipped test says why.
const pg = (await postgresForFile('PostgreSQL state tests'))!;

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

describe.skipIf(!pg)('the PostgreSQL state', () => {
  it('keeps the guardrail denials an apply let through, with their reasons, in the history', async () => {
    emu = await emulator();
    const dir = testdir({ 'a.yaml': [offer('a')], 'rules/r.yaml': '- name: no-creates\n  expression: change.action != "create"\n' });
    const env = { TAPEDECK_STATE_URL: pg.url(fresh()), TAPEDECK_ACTOR: 'alice' };
    const applied = await runCli(['apply', ...against(emu.url, dir), '--yes', '--allow', 'no-creates=first setup'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    const rows = JSON.parse((await runCli(['state', 'history', dir, '--json'], { cwd: dir, env })).stdout);
    expect(rows[0].allowances).toEqual([{ rule: 'no-creates', reason: 'first setup' }]);
    expect((await runCli(['state', 'history', dir], { cwd: dir, env })).stdout).toContain('\n  allowed no-creates: first setup\n');
  });

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
    expect(await pg.sql(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).toEqual([{ version: 1 }, { version: 2 }]);
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
    const race = async (expected: RegExp) => {
      const [a, b] = [await backendFor(url), await backendFor(url)];
      const [one, two] = [await State.open(a), await State.open(b)];
      one.set('Offer/a', { kind: 'Offer', id: `o${one.ref().serial}` });
      await one.save();
      two.set('Offer/b', { kind: 'Offer', id: 'o2' });
      await expect(two.save()).rejects.toThrow(expected);
      // The first writer goes on writing its own version; the second never got in.
      one.set('Offer/c', { kind: 'Offer', id: 'o3' });
      await one.save();
      await Promise.all([a.close(), b.close()]);
    };
    // Both read an empty database (the first write inserts the row), then both read that row (writes update it).
    await race(/was written by another run since this one read it \(it is at serial 1, written \d{4}-.*\); nothing was written: run again/);
    await race(/was written by another run since this one read it \(it is at serial 2, written \d{4}-.*\); nothing was written: run again/);
    const reader = await backendFor(url);
    const now = await State.open(reader);
    await reader.close();
    expect(Object.keys(now.data.resources)).toEqual(['Offer/a', 'Offer/c']);
    expect(now.data.resources['Offer/a'].id).toBe('o1');
    expect(now.data.serial).toBe(2);
  });

  it('a state file is a compare-and-set too: a run writing over a file another run wrote since is refused', async () => {
    const dir = testdir({});
    const file = join(dir, 'state.json');
    const [one, two] = [State.load(file), State.load(file)];
    one.set('Offer/a', { kind: 'Offer', id: 'o1' });
    await one.save();
    two.set('Offer/b', { kind: 'Offer', id: 'o2' });
    expect(() => two.save()).toThrow(`the state file ${file} was written by another run since this one read it; nothing was written (run again)`);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).resources)).toEqual(['Offer/a']);
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
    expect(run.stderr).toMatch(/holds tapedeck's tables at version 99; this tapedeck \(.*\) knows versions up to 2: upgrade tapedeck/);
  });
});

describe.skipIf(!pg)('the roles of the README\'s CI recipe', () => {
  it('the apply role owns the schema; a plan needs only SELECT, and the plan role cannot write', async () => {
    emu = await emulator();
    const schema = fresh();
    const [apply, plan] = [`${schema}_apply`, `${schema}_plan`];
    for (const sql of [
      `CREATE ROLE ${apply} LOGIN PASSWORD 'apply-secret'`, `CREATE SCHEMA ${schema} AUTHORIZATION ${apply}`,
      `CREATE ROLE ${plan} LOGIN PASSWORD 'plan-secret'`, `GRANT USAGE ON SCHEMA ${schema} TO ${plan}`,
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${apply} IN SCHEMA ${schema} GRANT SELECT ON TABLES TO ${plan}`,
    ]) await pg.sql(sql);
    const as = (role: string, password: string) => `postgres://${role}:${password}@127.0.0.1:${pg.port}/postgres?schema=${schema}`;
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const before = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir, env: { TAPEDECK_STATE_URL: as(plan, 'plan-secret') } });
    expect(JSON.parse(before.stdout).summary.create).toBe(1);
    const applied = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir, env: { TAPEDECK_STATE_URL: as(apply, 'apply-secret') } });
    expect(applied.code, applied.stderr).toBe(0);
    const after = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir, env: { TAPEDECK_STATE_URL: as(plan, 'plan-secret') } });
    expect(after.stdout).toMatch(/No changes/);
    const refused = await runCli(['state', 'forget', 'Offer/a', dir], { cwd: dir, env: { TAPEDECK_STATE_URL: as(plan, 'plan-secret') } });
    expect(refused.stderr).toMatch(/^error: the state database postgres:\/\/\S+_plan:\*\*\*@\S+: recording the lock holder failed: permission denied for table locks \(42501\)\n$/);
  });
});

describe.skipIf(!pg)('the lock', () => {
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

describe.skipIf(!pg)('state pull and push', () => {
  it('a file state moves into the database with its lineage and serial; pull prints it as the file was', async () => {
    emu = await emulator();
    const url = pg.url(fresh());
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const file = join(dir, '.tapedeck/default.state.json');
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    const local = JSON.parse(readFileSync(file, 'utf8'));
    const push = await runCli(['state', 'push', file, dir, '--state', url], { cwd: dir });
    expect(push.stdout).toBe(`Pushed ${file} (serial 1, lineage ${local.lineage}, 1 resource) to the state ${url.replace(/:[^:@]+@/, ':***@')} (environment default).\n`);
    const pull = await runCli(['state', 'pull', dir, '--state', url], { cwd: dir });
    expect(pull.stdout).toBe(readFileSync(file, 'utf8'));
    const again = await runCli(['state', 'push', file, dir, '--state', url], { cwd: dir });
    expect(again.stdout).toMatch(/holds .* already \(serial 1\); nothing was written\.\n$/);
    // The database state moves on; the file, now older, is refused, and so is another history.
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes', '--state', url], { cwd: dir })).code).toBe(0);
    const older = await runCli(['state', 'push', file, dir, '--state', url], { cwd: dir });
    expect(older).toMatchObject({ code: 1, stderr: `error: the state is at serial 2, newer than ${file}'s 1; nothing was written (--force overwrites it; pull a backup first)\n` });
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ ...local, lineage: 'another-history', serial: 7 }));
    expect((await runCli(['state', 'push', other, dir, '--state', url], { cwd: dir })).stderr).toMatch(/has lineage another-history, but the state has [0-9a-f-]+: they are different histories/);
    const forced = await runCli(['state', 'push', other, dir, '--state', url, '--force'], { cwd: dir });
    expect(forced.stdout).toMatch(/^Pushed .* \(serial 8, lineage another-history, 1 resource\)/);
    const history = JSON.parse((await runCli(['state', 'history', dir, '--state', url, '--json'], { cwd: dir })).stdout);
    expect(history.map((h: { serial: number; command: string }) => [h.serial, h.command])).toEqual([[8, 'state push'], [2, 'apply'], [1, 'state push']]);
    const old = await runCli(['state', 'pull', dir, '--state', url, '--serial', '2'], { cwd: dir });
    expect(JSON.parse(old.stdout)).toMatchObject({ lineage: local.lineage, serial: 2, resources: local.resources });
    expect((await runCli(['state', 'pull', dir, '--state', url, '--serial', '5'], { cwd: dir })).stderr).toMatch(/has no version with serial 5 \(see tapedeck state history\)/);
  });

  it('a state of another environment is refused; an empty state pulls as nothing', async () => {
    const url = pg.url(fresh());
    const dir = testdir({ 'staging.json': JSON.stringify({ format_version: 1, lineage: 'l', serial: 3, platform: { origin: 'http://x', environment: 'staging' }, resources: {} }) });
    const push = await runCli(['state', 'push', join(dir, 'staging.json'), dir, '--state', url, '--env', 'production'], { cwd: dir });
    expect(push.stderr).toMatch(/staging\.json is the state of environment staging, not production: choose that one with --env/);
    const pull = await runCli(['state', 'pull', dir, '--state', url], { cwd: dir });
    expect(pull).toMatchObject({ code: 0, stdout: '', stderr: expect.stringMatching(/^The state postgres:.* \(environment default\) is empty: nothing was written yet\.\n$/) });
  });
});

describe.skipIf(!pg)('the database password', () => {
  const forms = (p: string) => [p, encodeURIComponent(p), p.slice(3, -4)];
  const clean = (out: string, secret: string) => forms(secret).filter((f) => out.includes(f));

  it('is never printed: not from the URL, PGPASSWORD or the project file, not in pg\'s errors, not with --debug', async () => {
    emu = await emulator();
    const schema = fresh();
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const outputs: string[] = [];
    const cli = async (args: string[], env: Record<string, string> = {}, cwd = dir) => {
      const r = await runCli(args, { cwd, env });
      outputs.push(r.stdout + r.stderr);
      return r;
    };
    const inUrl = pg.url(schema);
    expect((await cli(['apply', ...against(emu.url, dir), '--yes', '--state', inUrl, '--debug'])).code).toBe(0);
    expect((await cli(['plan', ...against(emu.url, dir), '--state', inUrl, '--format', 'markdown'])).stdout).toContain(':***@127.0.0.1');
    await cli(['state', 'history', dir, '--state', inUrl]);
    await cli(['state', 'pull', dir, '--state', inUrl]);
    // From PGPASSWORD: the URL shown has no password at all.
    const bare = pg.url(schema, { password: false });
    const viaEnv = await cli(['state', 'list', dir, '--state', bare], { PGPASSWORD: pg.password });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    // From the project file: ${env.NAME} fills the password in, percent-encoded.
    const project = testdir({ 'a.yaml': [offer('a')], 'tapedeck.yaml': `version: 1\nenvironments:\n  default:\n    state: postgres://${pg.user}:\${env.DB_PASSWORD}@127.0.0.1:${pg.port}/postgres?schema=${schema}\n` });
    const viaProject = await cli(['plan', ...against(emu.url, project)], { DB_PASSWORD: pg.password }, project);
    expect(viaProject.stdout).toMatch(/No changes/);
    const missing = await cli(['plan', ...against(emu.url, project)], {}, project);
    expect(missing.stderr).toBe('error: tapedeck.yaml: environments.default.state: environment variable DB_PASSWORD is not set (${env.DB_PASSWORD})\n');
    // The server's own errors: a wrong password, and no server at all.
    const wrong = `${pg.password}-wrong`;
    const refused = await cli(['state', 'list', dir, '--state', `postgres://${pg.user}:${encodeURIComponent(wrong)}@127.0.0.1:${pg.port}/postgres`, '--debug']);
    expect(refused.stderr).toMatch(/^error: the state database postgres:\/\/tapedeck_test:\*\*\*@127\.0\.0\.1:\d+\/postgres\?schema=tapedeck: connecting failed: password authentication failed for user "tapedeck_test" \(28P01\)\n$/);
    const closed = await cli(['apply', ...against(emu.url, dir), '--yes', '--state', `postgres://${pg.user}:${encodeURIComponent(wrong)}@127.0.0.1:9/postgres`]);
    expect(closed.stderr).toMatch(/connecting failed: connect ECONNREFUSED 127\.0\.0\.1:9/);
    for (const out of outputs) {
      expect(clean(out, pg.password), out).toEqual([]);
      expect(clean(out, wrong), out).toEqual([]);
    }
    // Nor stored: not in the states, the history or the lock holders.
    const stored = await pg.sql<{ t: string }>(`SELECT (SELECT json_agg(s)::text FROM ${schema}.states s) || (SELECT json_agg(h)::text FROM ${schema}.history h) AS t`);
    expect(clean(stored[0].t, pg.password)).toEqual([]);
  });
});

describe('a state URL that cannot be used', () => {
  it.each([
    [{ TAPEDECK_STATE_URL: 'states/prod.json' }, [], 'error: TAPEDECK_STATE_URL must be a PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck)\n'],
    [{}, ['--state', 'postgres://ci:hunter2-secret@db:port/x'], 'error: --state is not a valid PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck; percent-encode special characters in the password)\n'],
    [{ TAPEDECK_STATE_URL: 'postgres://ci:hunter2-secret@db/x?schema=a;drop' }, [], 'error: TAPEDECK_STATE_URL: schema="a;drop" must be a plain lower-case name (letters, digits, _; at most 63)\n'],
  ])('%j %j: one line, nothing read, the URL not echoed', async (env, args, stderr) => {
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const run = await runCli(['plan', dir, '--base-url', 'http://127.0.0.1:9', ...args], { cwd: dir, env });
    expect(run).toEqual({ code: 1, stdout: '', stderr });
  });
});

it('validate reads no state: a state URL whose password variable is not set does not stop it', async () => {
  const dir = testdir({ 'a.yaml': [offer('a')], 'tapedeck.yaml': 'version: 1\nenvironments:\n  default:\n    state: postgres://ci:${env.DB_PASSWORD}@db.example.com/infra\n' });
  const run = await runCli(['validate', dir, '--state', 'postgres://x@y:bad/z'], { cwd: dir, env: { TAPEDECK_STATE_URL: 'not a url' } });
  expect(run).toEqual({ code: 0, stdout: '1 document valid.\n', stderr: '' });
});
