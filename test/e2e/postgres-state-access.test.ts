// Who and what may use the database state, against a real PostgreSQL server (test/helpers/postgres.ts): the CI
// recipe's roles, the lock and its holder, pull and push, and the password kept out of every output. Tables, history,
// compare-and-set writes and the state URLs refused are in postgres-state.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { offer } from '../helpers/agent.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';
import { backendFor, fresh } from '../helpers/postgres-state.js';

// Undefined where the server cannot start: then every describe below is skipped, and one skipped test says why.
const pg = (await postgresForFile('PostgreSQL state access tests'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** A run's output without the warning a password on the command line earns (test/e2e/state-url.test.ts). */
const withoutArgvWarning = <R extends { stderr: string }>(r: R): R => ({
  ...r,
  stderr: r.stderr.replace(/^warning: a password in --state .*\n/, ''),
});

describe.skipIf(!pg)('the roles of the CI recipe in docs/state-postgres.md', () => {
  it('the apply role owns the schema; a plan needs only SELECT, and the plan role cannot write', async () => {
    emu = await emulator();
    const schema = fresh();
    const [apply, plan] = [`${schema}_apply`, `${schema}_plan`];
    for (const sql of [
      `CREATE ROLE ${apply} LOGIN PASSWORD 'apply-secret'`,
      `CREATE SCHEMA ${schema} AUTHORIZATION ${apply}`,
      `CREATE ROLE ${plan} LOGIN PASSWORD 'plan-secret'`,
      `GRANT USAGE ON SCHEMA ${schema} TO ${plan}`,
      `ALTER DEFAULT PRIVILEGES FOR ROLE ${apply} IN SCHEMA ${schema} GRANT SELECT ON TABLES TO ${plan}`,
    ])
      await pg.sql(sql);
    const as = (role: string, password: string) =>
      `postgres://${role}:${password}@127.0.0.1:${pg.port}/postgres?schema=${schema}`;
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const before = await runCli(['plan', ...against(emu.url, dir), '--json'], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: as(plan, 'plan-secret') },
    });
    expect(JSON.parse(before.stdout).summary.create).toBe(1);
    const applied = await runCli(['apply', ...against(emu.url, dir), '--yes'], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: as(apply, 'apply-secret') },
    });
    expect(applied.code, applied.stderr).toBe(0);
    const after = await runCli(['plan', ...against(emu.url, dir)], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: as(plan, 'plan-secret') },
    });
    expect(after.stdout).toMatch(/No changes/);
    const refused = await runCli(['state', 'forget', 'Offer/a', dir], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: as(plan, 'plan-secret') },
    });
    expect(refused.stderr).toMatch(
      /^error: the state database postgres:\/\/\S+_plan:\*\*\*@\S+: recording the lock holder failed: permission denied for table locks \(42501\)\n$/,
    );
  });
});

describe.skipIf(!pg)('the lock', () => {
  it('a second apply fails at once naming the holder; with --lock-timeout it waits for it', async () => {
    emu = await emulator();
    const url = pg.url(fresh());
    // The holder's configuration: the lock is per configuration and environment.
    const dir = testdir({ 'a.yaml': [offer('a')], 'tapedeck.yaml': 'version: 1\nname: test\n' });
    const holder = await backendFor(url);
    await holder.lock(0);
    const refused = await runCli(['apply', ...against(emu.url, dir), '--yes', '--state', url], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `is locked by another apply \\(host ${hostname()}, pid ${process.pid}, actor test, since \\d{4}-[^)]+\\); wait for it, or pass --lock-timeout SECONDS`,
      ),
    );
    expect(emu.stats.writes).toBe(0);
    setTimeout(() => void holder.close(), 300);
    const waited = await runCli(['apply', ...against(emu.url, dir), '--yes', '--state', url, '--lock-timeout', '20'], {
      cwd: dir,
    });
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
    expect(push.stdout).toBe(
      `Pushed ${file} (serial 1, lineage ${local.lineage}, 1 resource) to the state ${url.replace(/:[^:@]+@/, ':***@')} (environment default).\n`,
    );
    const pull = await runCli(['state', 'pull', dir, '--state', url], { cwd: dir });
    expect(pull.stdout).toBe(readFileSync(file, 'utf8'));
    const again = await runCli(['state', 'push', file, dir, '--state', url], { cwd: dir });
    expect(again.stdout).toMatch(/holds .* already \(serial 1\); nothing was written\.\n$/);
    // The database state moves on (an apply that corrects drift; one with nothing to do writes nothing); the file,
    // now older, is refused, and so is another history.
    const id = local.resources['Offer/a'].id;
    await call(emu, 'PATCH', `/monetization/offers/v1/${id}`, {
      offer_id: id,
      offer: { name: 'drifted' },
      update_mask: 'name',
    });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes', '--state', url], { cwd: dir })).code).toBe(0);
    const older = withoutArgvWarning(await runCli(['state', 'push', file, dir, '--state', url], { cwd: dir }));
    expect(older).toMatchObject({
      code: 1,
      stderr: `error: the state is at serial 2, newer than ${file}'s 1; nothing was written (--force overwrites it; pull a backup first)\n`,
    });
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ ...local, lineage: 'another-history', serial: 7 }));
    expect((await runCli(['state', 'push', other, dir, '--state', url], { cwd: dir })).stderr).toMatch(
      /has lineage another-history, but the state has [0-9a-f-]+: they are different histories/,
    );
    const forced = await runCli(['state', 'push', other, dir, '--state', url, '--force'], { cwd: dir });
    expect(forced.stdout).toMatch(/^Pushed .* \(serial 8, lineage another-history, 1 resource\)/);
    const history = JSON.parse(
      (await runCli(['state', 'history', dir, '--state', url, '--json'], { cwd: dir })).stdout,
    );
    expect(history.map((h: { serial: number; command: string }) => [h.serial, h.command])).toEqual([
      [8, 'state push'],
      [2, 'apply'],
      [1, 'state push'],
    ]);
    const old = await runCli(['state', 'pull', dir, '--state', url, '--serial', '2'], { cwd: dir });
    expect(JSON.parse(old.stdout)).toMatchObject({ lineage: local.lineage, serial: 2, resources: local.resources });
    expect((await runCli(['state', 'pull', dir, '--state', url, '--serial', '5'], { cwd: dir })).stderr).toMatch(
      /has no version with serial 5 \(see tapedeck state history\)/,
    );
  });

  it('a state of another environment is refused; an empty state pulls as nothing', async () => {
    const url = pg.url(fresh());
    const dir = testdir({
      'staging.json': JSON.stringify({
        format_version: 1,
        lineage: 'l',
        serial: 3,
        platform: { origin: 'http://x', environment: 'staging' },
        resources: {},
      }),
    });
    const push = await runCli(
      ['state', 'push', join(dir, 'staging.json'), dir, '--state', url, '--env', 'production'],
      { cwd: dir },
    );
    expect(push.stderr).toMatch(
      /staging\.json is the state of environment staging, not production: choose that one with --env/,
    );
    const pull = withoutArgvWarning(await runCli(['state', 'pull', dir, '--state', url], { cwd: dir }));
    expect(pull).toMatchObject({
      code: 0,
      stdout: '',
      stderr: expect.stringMatching(
        /^The state postgres:.* \(environment default\) is empty: nothing was written yet\.\n$/,
      ),
    });
  });
});

describe.skipIf(!pg)('the database password', () => {
  const forms = (p: string) => [p, encodeURIComponent(p), p.slice(3, -4)];
  const clean = (out: string, secret: string) => forms(secret).filter((f) => out.includes(f));

  it("is never printed: not from the URL, PGPASSWORD or the project file, not in pg's errors, not with --debug", async () => {
    emu = await emulator();
    const schema = fresh();
    // One configuration in two directories (below, one with the password in its project file): one row.
    const dir = testdir({ 'a.yaml': [offer('a')], 'tapedeck.yaml': 'version: 1\nname: shared\n' });
    const outputs: string[] = [];
    const cli = async (args: string[], env: Record<string, string> = {}, cwd = dir) => {
      const r = await runCli(args, { cwd, env });
      outputs.push(r.stdout + r.stderr);
      return r;
    };
    const inUrl = pg.url(schema);
    expect((await cli(['apply', ...against(emu.url, dir), '--yes', '--state', inUrl, '--debug'])).code).toBe(0);
    expect((await cli(['plan', ...against(emu.url, dir), '--state', inUrl, '--format', 'markdown'])).stdout).toContain(
      ':***@127.0.0.1',
    );
    await cli(['state', 'history', dir, '--state', inUrl]);
    await cli(['state', 'pull', dir, '--state', inUrl]);
    // From PGPASSWORD: the URL shown has no password at all.
    const bare = pg.url(schema, { password: false });
    const viaEnv = await cli(['state', 'list', dir, '--state', bare], { PGPASSWORD: pg.password });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    // From the project file: ${env.NAME} fills the password in, percent-encoded.
    const project = testdir({
      'a.yaml': [offer('a')],
      'tapedeck.yaml': `version: 1\nname: shared\nenvironments:\n  default:\n    state: postgres://${pg.user}:\${env.DB_PASSWORD}@127.0.0.1:${pg.port}/postgres?schema=${schema}\n`,
    });
    const viaProject = await cli(['plan', ...against(emu.url, project)], { DB_PASSWORD: pg.password }, project);
    expect(viaProject.stdout).toMatch(/No changes/);
    const missing = await cli(['plan', ...against(emu.url, project)], {}, project);
    expect(missing.stderr).toBe(
      'error: tapedeck.yaml: environments.default.state: environment variable DB_PASSWORD is not set (${env.DB_PASSWORD})\n',
    );
    // The server's own errors: a wrong password, and no server at all.
    const wrong = `${pg.password}-wrong`;
    const refused = await cli([
      'state',
      'list',
      dir,
      '--state',
      `postgres://${pg.user}:${encodeURIComponent(wrong)}@127.0.0.1:${pg.port}/postgres`,
      '--debug',
    ]);
    expect(refused.stderr).toMatch(
      /^warning: a password in --state .*\nerror: the state database postgres:\/\/tapedeck_test:\*\*\*@127\.0\.0\.1:\d+\/postgres\?schema=tapedeck: connecting failed: password authentication failed for user "tapedeck_test" \(28P01\)\n$/,
    );
    const closed = await cli([
      'apply',
      ...against(emu.url, dir),
      '--yes',
      '--state',
      `postgres://${pg.user}:${encodeURIComponent(wrong)}@127.0.0.1:9/postgres`,
    ]);
    expect(closed.stderr).toMatch(/connecting failed: connect ECONNREFUSED 127\.0\.0\.1:9/);
    for (const out of outputs) {
      expect(clean(out, pg.password), out).toEqual([]);
      expect(clean(out, wrong), out).toEqual([]);
    }
    // Nor stored: not in the states, the history or the lock holders.
    const stored = await pg.sql<{ t: string }>(
      `SELECT (SELECT json_agg(s)::text FROM ${schema}.states s) || (SELECT json_agg(h)::text FROM ${schema}.history h) AS t`,
    );
    expect(clean(stored[0].t, pg.password)).toEqual([]);
  });
});
