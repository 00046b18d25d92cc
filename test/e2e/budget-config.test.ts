// The budget in the project file (environments.NAME.budget) and its flags: bad values are located errors of
// tapedeck.yaml (file:line:col, exit 1, nothing sent); a run with a budget says in its plan and apply JSON how long
// it waited on it and the round trips it cost, and leaves its lease in the bucket file beside its state ended.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const project = (budget: string) =>
  `version: 1\nenvironments:\n  prod:\n    base_url: http://127.0.0.1:9\n    budget:\n${budget}`;
const vod = { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } };

describe('a budget the project file gets wrong', () => {
  it.each([
    ['a share above 1', '      share: 1.5\n', ':6:7', 'budget.share: must be <= 1'],
    ['a max_rps that is not a whole number', '      max_rps: 2.5\n', ':6:7', 'budget.max_rps: must be integer'],
    ['neither max_rps nor share', '      priority: { apply: 2 }\n', ':5:5', 'budget: needs max_rps'],
    ['an unknown key', '      max_rps: 10\n      burst: 3\n', ':7:7', 'budget.burst: unknown field'],
    ['a priority of 0', '      max_rps: 10\n      priority: { plan: 0 }\n', ':7:19', 'priority.plan: must be >= 1'],
  ])('%s: located, exit 1, nothing sent', async (_, budget, at, message) => {
    const dir = testdir({ 'tapedeck.yaml': project(budget), 'a.yaml': vod });
    const run = await runCli(['plan', dir, '--env', 'prod'], { cwd: dir });
    expect(run.code).toBe(1);
    const line = run.stderr.split('\n').find((l) => l.includes('tapedeck.yaml'))!;
    expect(line).toContain(`tapedeck.yaml${at}`);
    expect(line).toContain(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ['--budget-share', '0', 'a fraction above 0, at most 1'],
    ['--budget-max-rps', '1.5', 'a whole number from 1'],
  ])('%s %s: refused, naming the flag', async (flag, value, what) => {
    const dir = testdir({ 'a.yaml': vod });
    const run = await runCli(['plan', dir, '--base-url', 'http://127.0.0.1:9', flag, value], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${flag} must be ${what}, not "${value}"`);
  });
});

describe('a run with a budget (file state)', () => {
  it('plan and apply JSON say how long the run waited on the budget; the lease ends with the run', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, { clock: undefined });
    const dir = testdir({
      'tapedeck.yaml': `version: 1\nenvironments:\n  prod:\n    budget: { max_rps: 50, priority: { apply: 5 } }\n`,
      'a.yaml': vod,
    });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--env', 'prod', '--json'], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).budget).toEqual({ waited_ms: expect.any(Number), round_trips: 1 });
    const apply = await runCli(['apply', ...against(emu.url, dir), '--env', 'prod', '--json', '--yes'], { cwd: dir });
    expect(apply.code, apply.stderr).toBe(0);
    const result = JSON.parse(apply.stdout);
    expect(result.summary.applied).toBe(1);
    expect(result.budget.round_trips).toBeGreaterThanOrEqual(1);
    const bucket = join(dir, '.tapedeck', `budget-${new URL(emu.url).host.replace(':', '_')}.json`);
    expect(existsSync(bucket)).toBe(true);
    // Both runs released their leases as they ended: nobody holds one.
    expect(JSON.parse(readFileSync(bucket, 'utf8')).holders).toEqual({});
  });

  it('--budget-max-rps gives a budget to a run whose project file has none', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'New' }] }, { clock: undefined });
    const dir = testdir({ 'a.yaml': vod });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json', '--budget-max-rps', '20'], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).budget.round_trips).toBe(1);
    const none = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(JSON.parse(none.stdout).budget).toBeUndefined();
  });
});
