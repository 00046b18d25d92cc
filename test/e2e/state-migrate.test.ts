// Moving a state (tapedeck state migrate FROM, state push --force) and a new state saying so: environments added to
// a working setup, TAPEDECK_STATE_URL exported while planning another environment, a database pointed at before
// `state push`. Each ends in "No changes", or in a plan that says its state is new and names where the resources are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';

const pg = (await postgresForFile('state migrate tests (database)'))!;

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});
// allow_duplicate: without it, looking before creating stops these plans at the live offers (naming the other state:
// the test below); with it they go on to the creates the new-state header warns about.
const offers = [
  { kind: 'Offer', name: 'a', allow_duplicate: true, spec: { project_id: 'p', name: 'A' } },
  { kind: 'Offer', name: 'b', allow_duplicate: true, spec: { project_id: 'p', name: 'B' } },
];
const environments = (url: string) =>
  `version: 1\nname: shop\nenvironments:\n  production:\n    base_url: ${url}\n  staging:\n    base_url: ${url}\n`;
let schemas = 0;

/** A working setup: applied without environments, into .tapedeck/default.state.json. */
async function working(docs: object[] = offers): Promise<string> {
  emu = await emulator();
  const dir = testdir({ 'o.yaml': docs, 'tapedeck.yaml': 'version: 1\nname: shop\n' });
  expect((await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: dir })).code).toBe(0);
  writeFileSync(join(dir, 'tapedeck.yaml'), environments(emu.url));
  return dir;
}

describe('environments added to a working setup', () => {
  it('the plan says its state is new and names the old one; state migrate moves it; then No changes', async () => {
    const dir = await working();
    const plan = await runCli(['plan', dir, '--env', 'production'], { cwd: dir });
    expect(plan.stdout).toContain(
      'The state is new: it records no resource, so every resource below is created.\nIf they exist already, they are recorded in another state of this configuration: .tapedeck/default.state.json (2 resources). Move it here with tapedeck state migrate',
    );
    const json = JSON.parse((await runCli(['plan', dir, '--env', 'production', '--json'], { cwd: dir })).stdout);
    expect(json.new_state).toEqual({ others: ['.tapedeck/default.state.json (2 resources)'] });
    const markdown = await runCli(['plan', dir, '--env', 'production', '--format', 'markdown'], { cwd: dir });
    expect(markdown.stdout).toContain('> ⚠️ The state is new: it records no resource');
    // state push without --force says which command moves it.
    const push = await runCli(['state', 'push', '.tapedeck/default.state.json', dir, '--env', 'production'], {
      cwd: dir,
    });
    expect(push.stderr).toContain(
      'is the state of environment default, not production: choose that one with --env, or move it to production with tapedeck state migrate .tapedeck/default.state.json --env production',
    );
    const moved = await runCli(['state', 'migrate', '.tapedeck/default.state.json', dir, '--env', 'production'], {
      cwd: dir,
    });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(
      /^Moved the state of environment default \(2 resources, lineage [\w-]+\) from \.tapedeck\/default\.state\.json to \.tapedeck\/production\.state\.json, environment production \(serial 2\)\./,
    );
    const after = await runCli(['plan', dir, '--env', 'production'], { cwd: dir });
    expect(after.stdout).toMatch(/No changes\. 2 resources up to date\./);
    expect(after.stdout).not.toContain('The state is new');
    const writes = emu!.writes().length;
    expect((await runCli(['apply', dir, '--env', 'production', '--yes'], { cwd: dir })).code).toBe(0);
    expect(emu!.writes().length).toBe(writes);
    // Moved again: nothing to do while it holds the same; refused, nothing written, once it holds something else.
    const again = await runCli(['state', 'migrate', '.tapedeck/default.state.json', dir, '--env', 'production'], {
      cwd: dir,
    });
    expect(again.stdout).toMatch(/holds \.tapedeck\/default\.state\.json already; nothing was written/);
    expect((await runCli(['state', 'forget', 'Offer/a', dir, '--env', 'production'], { cwd: dir })).code).toBe(0);
    const before = readFileSync(join(dir, '.tapedeck/production.state.json'), 'utf8');
    const twice = await runCli(['state', 'migrate', '.tapedeck/default.state.json', dir, '--env', 'production'], {
      cwd: dir,
    });
    expect(twice.stderr).toMatch(/records 1 resource\(s\) already; nothing was written/);
    expect(readFileSync(join(dir, '.tapedeck/production.state.json'), 'utf8')).toBe(before);
  });

  it('a migrated state is marked as moved: a second migrate is refused, no run uses it, no note offers it', async () => {
    const dir = await working();
    const from = '.tapedeck/default.state.json';
    const moved = await runCli(['state', 'migrate', from, dir, '--env', 'production'], { cwd: dir });
    expect(moved.code, moved.stderr).toBe(0);
    const backup = JSON.parse(readFileSync(join(dir, from), 'utf8'));
    expect(backup.moved_to).toMatchObject({
      state: join(dir, '.tapedeck/production.state.json'),
      environment: 'production',
    });
    expect(Object.keys(backup.resources)).toEqual(['Offer/a', 'Offer/b']);
    expect(JSON.parse(readFileSync(join(dir, '.tapedeck/production.state.json'), 'utf8')).moved_to).toBeUndefined();
    // Into a second environment: refused, naming where it went; nothing written.
    const before = readFileSync(join(dir, from), 'utf8');
    const second = await runCli(['state', 'migrate', from, dir, '--env', 'staging'], { cwd: dir });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `${from} was moved by tapedeck state migrate to ${join(dir, '.tapedeck/production.state.json')}, environment production, at `,
    );
    expect(existsSync(join(dir, '.tapedeck/staging.state.json'))).toBe(false);
    expect(readFileSync(join(dir, from), 'utf8')).toBe(before);
    // The backup cannot be used by a run.
    const used = await runCli(['plan', dir, '--env', 'staging', '--state', from], { cwd: dir });
    expect(used.code).toBe(1);
    expect(used.stderr).toMatch(/was moved by tapedeck state migrate to .*: it is kept as a backup/);
    // Staging's new state: neither the moved backup nor production's state (another environment's) is offered.
    const plan = await runCli(['plan', dir, '--env', 'staging', '--json'], { cwd: dir });
    expect(JSON.parse(plan.stdout).new_state).toEqual({ others: [] });
    const text = await runCli(['plan', dir, '--env', 'staging'], { cwd: dir });
    expect(text.stdout).toContain('No other state of this configuration is in sight.');
    expect(text.stdout + text.stderr).not.toContain('state migrate');
  });

  it('looking before creating stops the plan of a new state, and names the state that records the resources', async () => {
    const dir = await working(offers.map(({ allow_duplicate: _, ...d }) => d));
    const plan = await runCli(['plan', dir, '--env', 'production'], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /the platform already has Offer off_\w+ with the same project_id, name, which no state entry manages/,
    );
    expect(plan.stderr).toContain(
      'note: this state is new (it records no resource), and another state of this configuration records resources: .tapedeck/default.state.json (2 resources). If it records these, use it (--env, --state) or move it here with tapedeck state migrate FROM; tapedeck import adopts one resource at a time.',
    );
    const json = JSON.parse((await runCli(['plan', dir, '--env', 'production', '--json'], { cwd: dir })).stdout);
    expect(
      json.errors.map((e: { code: string; hint: string }) => [
        e.code,
        e.hint.includes('.tapedeck/default.state.json (2 resources)'),
      ]),
    ).toEqual([
      ['E_DUPLICATE', true],
      ['E_DUPLICATE', true],
    ]);
    expect(emu!.writes()).toHaveLength(2);
  });

  it('state push --force rebinds the state to the environment it is pushed into: every command can use it', async () => {
    const dir = await working();
    const push = await runCli(
      ['state', 'push', '.tapedeck/default.state.json', dir, '--env', 'production', '--force'],
      { cwd: dir },
    );
    expect(push.code, push.stderr).toBe(0);
    const plan = await runCli(['plan', dir, '--env', 'production'], { cwd: dir });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toMatch(/No changes\. 2 resources up to date\./);
    expect(JSON.parse(readFileSync(join(dir, '.tapedeck/production.state.json'), 'utf8')).platform.environment).toBe(
      'production',
    );
  });

  it('a plan with no other state in sight says the state is new, and that none is', async () => {
    emu = await emulator();
    const dir = testdir({ 'o.yaml': offers });
    const plan = await runCli(['plan', dir, '--base-url', emu.url], { cwd: dir });
    expect(plan.stdout).toContain(
      'The state is new: it records no resource, so every resource below is created. No other state of this configuration is in sight.',
    );
    expect(existsSync(join(dir, '.tapedeck'))).toBe(false);
  });
});

describe.skipIf(!pg)('a database state', () => {
  it('pointed at before state push: the plan names the file state; migrate moves it in, and back out to a file', async () => {
    emu = await emulator();
    const url = pg.url(`mig${++schemas}`);
    const dir = testdir({ 'o.yaml': offers, 'tapedeck.yaml': 'version: 1\nname: shop\n' });
    expect((await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: dir })).code).toBe(0);
    const env = { TAPEDECK_STATE_URL: url };
    const plan = await runCli(['plan', dir, '--base-url', emu.url, '--json'], { cwd: dir, env });
    expect(JSON.parse(plan.stdout).new_state).toEqual({ others: ['.tapedeck/default.state.json (2 resources)'] });
    const moved = await runCli(['state', 'migrate', '.tapedeck/default.state.json', dir], { cwd: dir, env });
    expect(moved.code, moved.stderr).toBe(0);
    expect((await runCli(['plan', dir, '--base-url', emu.url], { cwd: dir, env })).stdout).toMatch(
      /No changes\. 2 resources up to date\./,
    );
    // And back: from the database to a file of its own.
    const back = await runCli(['state', 'migrate', url, dir, '--state', '.tapedeck/back.state.json'], { cwd: dir });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).not.toContain(pg.password);
    const fromFile = await runCli(['plan', dir, '--base-url', emu.url, '--state', '.tapedeck/back.state.json'], {
      cwd: dir,
    });
    expect(fromFile.stdout).toMatch(/No changes\. 2 resources up to date\./);
  });

  it("TAPEDECK_STATE_URL exported while planning another environment: the plan names that environment's file", async () => {
    emu = await emulator();
    const dir = testdir({ 'o.yaml': offers, 'tapedeck.yaml': environments('http://127.0.0.1:9') });
    writeFileSync(join(dir, 'tapedeck.yaml'), environments(emu.url));
    expect((await runCli(['apply', dir, '--env', 'staging', '--yes'], { cwd: dir })).code).toBe(0);
    const url = pg.url(`mig${++schemas}`);
    const plan = await runCli(['plan', dir, '--env', 'staging'], { cwd: dir, env: { TAPEDECK_STATE_URL: url } });
    expect(plan.stdout).toContain('another state of this configuration: .tapedeck/staging.state.json (2 resources)');
    // The reverse: a file state chosen while a database is configured names the database, its password masked.
    // Planning production, staging's state is staging's (an environment this configuration has): never offered.
    const reverse = await runCli(['plan', dir, '--env', 'production', '--json'], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: url },
    });
    expect(JSON.parse(reverse.stdout).new_state.others).toEqual([]);
    const file = await runCli(['plan', dir, '--env', 'production', '--state', '.tapedeck/new.state.json', '--json'], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: url },
    });
    const others: string[] = JSON.parse(file.stdout).new_state.others;
    expect(others).not.toContain('.tapedeck/staging.state.json (2 resources)');
    expect(others).toContain(
      `postgres://${pg.user}:***@127.0.0.1:${pg.port}/postgres?schema=mig${schemas} (a database configured for this configuration)`,
    );
    expect(file.stdout + file.stderr).not.toContain(pg.password);
  });
});
