// The database state against a real PostgreSQL server (test/helpers/postgres.ts): tables made on first use, the
// history, compare-and-set writes, the state URLs refused. Its roles, lock, pull and push and the password are in
// postgres-state-access.test.ts; the process-level cases (two applies at once, a SIGKILLed holder) in
// test/slow/postgres-lock.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { State } from '../../src/state/state.js';
import { offer } from '../helpers/agent.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';
import { backendFor, fresh } from '../helpers/postgres-state.js';

// Undefined where the server cannot start: then every describe below is skipped, and one skipped test says why.
const pg = (await postgresForFile('PostgreSQL state tests'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe.skipIf(!pg)('the PostgreSQL state', () => {
  it('keeps the guardrail denials an apply let through, with their reasons, in the history', async () => {
    emu = await emulator();
    const dir = testdir({
      'a.yaml': [offer('a')],
      'rules/r.yaml': '- name: no-creates\n  expression: change.action != "create"\n',
    });
    const env = { TAPEDECK_STATE_URL: pg.url(fresh()), TAPEDECK_ACTOR: 'alice' };
    const applied = await runCli(['apply', ...against(emu.url, dir), '--yes', '--allow', 'no-creates=first setup'], {
      cwd: dir,
      env,
    });
    expect(applied.code, applied.stderr).toBe(0);
    const rows = JSON.parse((await runCli(['state', 'history', dir, '--json'], { cwd: dir, env })).stdout);
    expect(rows[0].allowances).toEqual([{ rule: 'no-creates', reason: 'first setup' }]);
    expect((await runCli(['state', 'history', dir], { cwd: dir, env })).stdout).toContain(
      '\n  allowed no-creates: first setup\n',
    );
  });

  it('keeps the change windows an apply overrode, with their reasons, beside the allowances', async () => {
    emu = await emulator();
    const dir = testdir({
      'a.yaml': [offer('a')],
      'tapedeck.yaml':
        'version: 1\nwindows:\n  - name: freeze\n    kind: deny\n    schedule: "0 0 * * *"\n    duration: 1d\n',
    });
    const env = { TAPEDECK_STATE_URL: pg.url(fresh()), TAPEDECK_ACTOR: 'alice' };
    const args = ['apply', ...against(emu.url, dir), '--yes', '--override-window', 'freeze=hotfix INC-9'];
    const applied = await runCli(args, { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    const rows = JSON.parse((await runCli(['state', 'history', dir, '--json'], { cwd: dir, env })).stdout);
    expect(rows[0]).toMatchObject({ allowances: null, overrides: [{ window: 'freeze', reason: 'hotfix INC-9' }] });
    expect((await runCli(['state', 'history', dir], { cwd: dir, env })).stdout).toContain(
      '\n  overrode window freeze: hotfix INC-9\n',
    );
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
    const second = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], {
      cwd: dir,
      env: { ...env, TAPEDECK_ACTOR: 'bob' },
    });
    expect(second.code, second.stderr).toBe(0);
    expect(await pg.sql(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
      { version: 6 },
    ]);
    const history = await runCli(['state', 'history', dir, '--json'], { cwd: dir, env });
    const rows = JSON.parse(history.stdout);
    expect(rows).toEqual([
      expect.objectContaining({
        serial: 2,
        actor: 'bob',
        host: hostname(),
        command: 'apply',
        configuration_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        tapedeck_version: expect.any(String),
      }),
      expect.objectContaining({ serial: 1, actor: 'alice', host: hostname(), command: 'apply' }),
    ]);
    expect(rows[0].configuration_hash).not.toBe(rows[1].configuration_hash);
    expect(rows[0].lineage).toBe(rows[1].lineage);
    const text = await runCli(['state', 'history', dir], { cwd: dir, env });
    expect(text.stdout).toMatch(
      new RegExp(
        `^SERIAL +WRITTEN +BY +HOST +TAPEDECK +COMMAND +CONFIGURATION\\n2 +\\d{4}-\\d\\d-\\d\\dT[^ ]+ +bob +${hostname()} +\\S+ +apply \\(\\d writes\\) +[0-9a-f]{12}\\n1 `,
      ),
    );
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
    await race(
      /was written by another run since this one read it \(it is at serial 1, written \d{4}-.*\); nothing was written: run again/,
    );
    await race(
      /was written by another run since this one read it \(it is at serial 2, written \d{4}-.*\); nothing was written: run again/,
    );
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
    expect(() => two.save()).toThrow(
      `the state file ${file} was written by another run since this one read it; nothing was written (run again)`,
    );
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).resources)).toEqual(['Offer/a']);
  });

  it('saves asked for while one is on its way become one write, of everything asked for until it starts', async () => {
    const url = pg.url(fresh());
    const backend = await backendFor(url);
    const state = await State.open(backend);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        state.set(`Offer/o${i}`, { kind: 'Offer', id: `id${i}` });
        return state.save();
      }),
    );
    await backend.close();
    const [row] = await pg.sql<{ version: string; n: number }>(
      `SELECT version, json_array_length(json_agg(k)) AS n FROM ${url.split('schema=')[1]}.states, json_object_keys(document->'resources') k GROUP BY version`,
    );
    expect(Number(row.n)).toBe(20);
    expect(Number(row.version)).toBeLessThanOrEqual(3);
  });

  it('a file state has no history: said in one line', async () => {
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const run = await runCli(['state', 'history', dir], { cwd: dir });
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: the state file .* keeps no history: only a database state does/),
    });
  });

  it('tables from a newer tapedeck are refused, naming what to do', async () => {
    const schema = fresh();
    const backend = await backendFor(pg.url(schema));
    await backend.lock(0);
    await backend.close();
    await pg.sql(`INSERT INTO ${schema}.schema_migrations (version, tapedeck_version) VALUES (99, 'future')`);
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const run = await runCli(['state', 'list', dir, '--state', pg.url(schema)], { cwd: dir });
    expect(run.stderr).toMatch(
      /holds tapedeck's tables at version 99; this tapedeck \(.*\) knows versions up to 6: upgrade tapedeck/,
    );
  });
});

describe('a state URL that cannot be used', () => {
  it.each([
    [
      { TAPEDECK_STATE_URL: 'states/prod.json' },
      [],
      'error: TAPEDECK_STATE_URL must be a PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck)\n',
    ],
    [
      {},
      ['--state', 'postgres://ci:hunter2-secret@db:port/x'],
      'error: --state is not a valid PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck; percent-encode special characters in the password)\n',
    ],
    [
      { TAPEDECK_STATE_URL: 'postgres://ci:hunter2-secret@db/x?schema=a;drop' },
      [],
      'error: TAPEDECK_STATE_URL: schema="a;drop" must be a plain lower-case name (letters, digits, _; at most 63)\n',
    ],
  ])('%j %j: one line, nothing read, the URL not echoed', async (env, args, stderr) => {
    const dir = testdir({ 'a.yaml': [offer('a')] });
    const run = await runCli(['plan', dir, '--base-url', 'http://127.0.0.1:9', ...args], { cwd: dir, env });
    expect(run).toEqual({ code: 1, stdout: '', stderr });
  });
});

it('validate reads no state: a state URL whose password variable is not set does not stop it', async () => {
  const dir = testdir({
    'a.yaml': [offer('a')],
    'tapedeck.yaml':
      'version: 1\nenvironments:\n  default:\n    state: postgres://ci:${env.DB_PASSWORD}@db.example.com/infra\n',
  });
  const run = await runCli(['validate', dir, '--state', 'postgres://x@y:bad/z'], {
    cwd: dir,
    env: { TAPEDECK_STATE_URL: 'not a url' },
  });
  expect(run).toEqual({ code: 0, stdout: '1 document valid.\n', stderr: '' });
});
