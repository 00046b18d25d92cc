// Lifecycle: saved plans applied from anywhere, export into a configured directory, moving a state entry by hand.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const statePath = (dir: string, env = 'default') => join(dir, `.tapedeck/${env}.state.json`);

describe('apply --plan FILE from any directory', () => {
  /** A checkout: `platform/` holds a project file with two environments (both this emulator) and one document. */
  const checkout = (url: string) => testdir({
    'platform/tapedeck.yaml': `version: 1\nenvironments:\n  staging:\n    base_url: ${url}\n    vars: { label: Staged }\n  production:\n    base_url: ${url}\n    vars: { label: Live }\n`,
    'platform/vod.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: '${var.label}' } },
  });
  const seed = { vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] };

  it('uses the configuration directory and the environment the plan records, relative to the plan file', async () => {
    emu = await emulator(seed);
    const made = checkout(emu.url);
    const plan = await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plans/plan.json'], { cwd: made });
    expect(plan.code).toBe(0);
    expect(JSON.parse(readFileSync(join(made, 'plans/plan.json'), 'utf8')).configuration).toEqual({ dir: '../platform' });
    // The checkout moves to another place (another CI job), and apply runs from a directory unrelated to both.
    const moved = testdir({});
    cpSync(made, moved, { recursive: true });
    const elsewhere = testdir({});
    const apply = await runCli(['apply', '--plan', join(moved, 'plans/plan.json'), '--yes'], { cwd: elsewhere });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(emu.stats.writes).toBe(1);
    expect(JSON.parse(readFileSync(statePath(join(moved, 'platform'), 'staging'), 'utf8')).resources['Vod/v']).toMatchObject({ id: 'v1' });
    const again = await runCli(['plan', join(moved, 'platform'), '--env', 'staging', '--detailed-exitcode'], { cwd: elsewhere });
    expect(again.code).toBe(0);
  });

  it('a DIR given to apply that is not the plan\'s configuration is refused, naming both; nothing sent', async () => {
    emu = await emulator(seed);
    const dir = checkout(emu.url);
    await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plan.json'], { cwd: dir });
    const reads = emu.stats.reads;
    const run = await runCli(['apply', '.', '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`error: the saved plan plan.json was made from the configuration in ${join(dir, 'platform')}, not ${dir}: leave DIR out, or make the plan again\n`);
    expect(emu.stats).toMatchObject({ reads, writes: 0 });
    const same = await runCli(['apply', 'platform', '--plan', 'plan.json', '--env', 'staging', '--yes'], { cwd: dir });
    expect(same.code).toBe(0);
  });

  it('a plan file moved without its documents is a clear error; nothing sent', async () => {
    emu = await emulator(seed);
    const dir = checkout(emu.url);
    await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plan.json'], { cwd: dir });
    const alone = testdir({});
    cpSync(join(dir, 'plan.json'), join(alone, 'plan.json'));
    const reads = emu.stats.reads;
    const run = await runCli(['apply', '--plan', 'plan.json', '--yes'], { cwd: alone });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`error: the saved plan plan.json records its configuration as platform (relative to the plan file), but ${join(alone, 'platform')} does not exist: move the plan file together with its checkout, or make the plan again\n`);
    expect(emu.stats).toMatchObject({ reads, writes: 0 });
  });

  it.each([
    ['--env', ['--env', 'production'], {}],
    ['TAPEDECK_ENV', [], { TAPEDECK_ENV: 'production' }],
  ])('an environment given by %s that is not the plan\'s is refused, naming both; nothing sent', async (from, args, env) => {
    emu = await emulator(seed);
    const dir = checkout(emu.url);
    await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plan.json'], { cwd: dir });
    const reads = emu.stats.reads;
    const run = await runCli(['apply', '--plan', 'plan.json', ...args, '--yes'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`error: the saved plan plan.json was made for environment staging, not production (${from}): leave ${from} out, or make the plan again\n`);
    expect(emu.stats).toMatchObject({ reads, writes: 0 });
  });
});
