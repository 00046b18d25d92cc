// A state belongs to one configuration: it records the configuration's identity (tapedeck.yaml's name, else the
// directory's path in its git work tree, else its name), a database keys its rows by it, and a run of another
// configuration with that state is refused before anything is read or written. A state from before records none:
// it is adopted by the next write, and the run says so.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { MIGRATIONS } from '../../src/state/postgres-schema.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';

const pg = (await postgresForFile('configuration identity tests (database)'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});
const offer = (name: string) => ({ kind: 'Offer', name, spec: { project_id: 'p', name } });
const names = (e: Emulator) => [...(e.store.collections.get('offers')?.values() ?? [])].map((o) => o.name).sort();
const project = (name?: string) => `version: 1\n${name ? `name: ${name}\n` : ''}`;
let schemas = 0;

describe('a file state', () => {
  it('of another configuration is refused before anything is read or written', async () => {
    emu = await emulator();
    const a = testdir({ 'o.yaml': [offer('a1')], 'tapedeck.yaml': project('alpha') });
    const b = testdir({ 'o.yaml': [offer('b1')], 'tapedeck.yaml': project('beta') });
    expect((await runCli(['apply', a, '--base-url', emu.url, '--yes'], { cwd: a })).code).toBe(0);
    const stateOfA = join(a, '.tapedeck', 'default.state.json');
    expect(JSON.parse(readFileSync(stateOfA, 'utf8')).configuration).toBe('alpha');
    const before = readFileSync(stateOfA, 'utf8');
    const calls = emu.calls().length;
    for (const args of [
      ['plan', b, '--base-url', emu.url],
      ['apply', b, '--base-url', emu.url, '--yes'],
      ['state', 'forget', 'Offer/a1', b],
      ['state', 'list', b],
    ]) {
      const run = await runCli([...args, '--state', stateOfA], { cwd: b });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `error: the state ${stateOfA} belongs to configuration alpha, not beta (this directory); nothing was read or written`,
      );
    }
    expect(emu.calls().length).toBe(calls);
    expect(readFileSync(stateOfA, 'utf8')).toBe(before);
  });

  it('from before (no configuration recorded) keeps working: adopted by the next write, and the run says so', async () => {
    emu = await emulator();
    const dir = testdir({ 'o.yaml': [offer('a1')], 'tapedeck.yaml': project('alpha') });
    expect((await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: dir })).code).toBe(0);
    const file = join(dir, '.tapedeck', 'default.state.json');
    const old = JSON.parse(readFileSync(file, 'utf8'));
    delete old.configuration;
    writeFileSync(file, JSON.stringify(old));
    const plan = await runCli(['plan', dir, '--base-url', emu.url], { cwd: dir });
    expect(plan.stderr).toContain('note: the state .* records no configuration yet'.replace('.*', file));
    expect(plan.stdout).toMatch(/No changes/);
    const apply = await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: dir });
    expect(apply.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).configuration).toBe('alpha');
    expect((await runCli(['plan', dir, '--base-url', emu.url], { cwd: dir })).stderr).toBe('');
  });

  it("the default identity is the directory's path in its git work tree: the same in every clone", async () => {
    emu = await emulator();
    const repo = testdir({ 'projects/alpha/o.yaml': [offer('a1')] });
    mkdirSync(join(repo, '.git'));
    const dir = join(repo, 'projects', 'alpha');
    expect((await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: repo })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, '.tapedeck', 'default.state.json'), 'utf8')).configuration).toBe(
      'projects/alpha',
    );
  });

  it('a directory of any name, moved: the name: the refusal advises is one tapedeck.yaml takes, and it works', async () => {
    emu = await emulator();
    const repo = testdir({ 'teams/Équipe live #1/o.yaml': [offer('a1')] });
    mkdirSync(join(repo, '.git'));
    expect((await runCli(['apply', 'teams/Équipe live #1', '--base-url', emu.url, '--yes'], { cwd: repo })).code).toBe(
      0,
    );
    renameSync(join(repo, 'teams/Équipe live #1'), join(repo, 'teams/live'));
    const moved = join(repo, 'teams/live');
    const refused = await runCli(['plan', moved, '--base-url', emu.url], { cwd: repo });
    expect(refused.code).toBe(1);
    const advice = /if this is .* moved, set (name: .*) in its tapedeck\.yaml\)$/m.exec(refused.stderr)?.[1];
    expect(advice, refused.stderr).toBeDefined();
    writeFileSync(join(moved, 'tapedeck.yaml'), `version: 1\n${advice}\n`);
    const plan = await runCli(['plan', moved, '--base-url', emu.url, '--detailed-exitcode'], { cwd: repo });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(names(emu)).toEqual(['a1']);
  });
});

describe.skipIf(!pg)('a database state', () => {
  it('two configuration directories, one environment name, one database: a row each, neither touches the other', async () => {
    emu = await emulator();
    const url = pg.url(`conf${++schemas}`);
    const env = { TAPEDECK_STATE_URL: url };
    const a = testdir({ 'o.yaml': [offer('a1')], 'tapedeck.yaml': project('alpha') });
    const b = testdir({ 'o.yaml': [offer('b1')], 'tapedeck.yaml': project('beta') });
    expect((await runCli(['apply', a, '--base-url', emu.url, '--yes'], { cwd: a, env })).code).toBe(0);
    const planB = JSON.parse((await runCli(['plan', b, '--base-url', emu.url, '--json'], { cwd: b, env })).stdout);
    expect(planB.summary).toMatchObject({ create: 1, release: 0 });
    expect((await runCli(['apply', b, '--base-url', emu.url, '--yes'], { cwd: b, env })).code).toBe(0);
    const planA = await runCli(['plan', a, '--base-url', emu.url], { cwd: a, env });
    expect(planA.stdout).toMatch(/No changes\. 1 resource up to date\./);
    expect((await runCli(['apply', a, '--base-url', emu.url, '--yes'], { cwd: a, env })).code).toBe(0);
    expect(names(emu)).toEqual(['a1', 'b1']);
    expect((await runCli(['state', 'list', b], { cwd: b, env })).stdout).toMatch(/^Offer\/b1\toff_\w+\n$/);
  });

  it('a row from before rows had a configuration is read, and adopted by the next write of its configuration', async () => {
    emu = await emulator();
    const schema = `conf${++schemas}`;
    const dir = testdir({ 'o.yaml': [offer('a1')], 'tapedeck.yaml': project('alpha') });
    // A database as the tapedeck before this one left it: tables at version 1, one row for environment default.
    await pg.sql(`CREATE SCHEMA ${schema}`);
    await pg.sql(
      `CREATE TABLE ${schema}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), tapedeck_version text NOT NULL)`,
    );
    for (const sql of MIGRATIONS[0](schema)) await pg.sql(sql);
    await pg.sql(`INSERT INTO ${schema}.schema_migrations (version, tapedeck_version) VALUES (1, 'old')`);
    const applied = await runCli(['apply', dir, '--base-url', emu.url, '--yes', '--json'], { cwd: dir });
    const id = JSON.parse(applied.stdout).results[0].id;
    const doc = {
      format_version: 1,
      lineage: 'l-old',
      serial: 3,
      platform: { origin: new URL(emu.url).origin, environment: 'default' },
      resources: { 'Offer/a1': { kind: 'Offer', id } },
    };
    await pg.sql(
      `INSERT INTO ${schema}.states (environment, lineage, serial, version, document) VALUES ('default', 'l-old', 3, 1, $1::json)`,
      [JSON.stringify(doc)],
    );
    const env = { TAPEDECK_STATE_URL: pg.url(schema) };
    const plan = await runCli(['plan', dir, '--base-url', emu.url], { cwd: dir, env });
    expect(plan.stderr).toMatch(
      /^note: the state postgres:.* records no configuration yet: it is bound to configuration alpha from its next write\n$/,
    );
    expect(plan.stdout).toMatch(/No changes/);
    expect((await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: dir, env })).code).toBe(0);
    expect(await pg.sql(`SELECT configuration, serial FROM ${schema}.states`)).toEqual([
      { configuration: 'alpha', serial: '4' },
    ]);
    const other = testdir({ 'o.yaml': [offer('b1')], 'tapedeck.yaml': project('beta') });
    const planB = JSON.parse(
      (await runCli(['plan', other, '--base-url', emu.url, '--json'], { cwd: other, env })).stdout,
    );
    expect(planB.summary).toMatchObject({ create: 1, release: 0 });
  });
});
