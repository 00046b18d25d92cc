// Saved plans, as the CI and pull-request workflow uses them: applied exactly as saved, and refused, with nothing
// written, when they went stale, were edited, were applied already, or are not a plan file to read.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { planChecksum } from '../../src/plan/saved.js';
import type { Plan } from '../../src/types.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { docs, seed } from '../helpers/workflow.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type SavedPlan = Plan;

describe('saved plans', () => {
  it('apply --plan applies exactly the saved plan when nothing moved', async () => {
    emu = await emulator(seed());
    const dir = docs();
    const plan = await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    expect(plan.code).toBe(0);
    const saved = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
    expect(saved).toMatchObject({
      format_version: 1,
      configuration_hash: expect.any(String),
      environment: { name: 'default', base_url: `${emu.url}/` },
    });
    expect(
      saved.changes
        .filter((c: { action: string }) => c.action !== 'noop')
        .every((c: { live_fingerprint: string }) => typeof c.live_fingerprint === 'string'),
    ).toBe(true);
    const apply = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes', '--json'], {
      cwd: dir,
    });
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout).summary).toEqual({
      applied: 4,
      failed: 0,
      skipped: 0,
      unknown: 0,
      not_kept: 0,
      unchanged: 1,
    });
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it('refuses, naming each resource, when the live state moved; writes nothing', async () => {
    emu = await emulator(seed());
    const dir = docs();
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    await call(emu, 'PATCH', '/streaming/vods/v1/v1', { vod: { name: 'Changed in the UI' }, update_mask: 'name' });
    await call(emu, 'PUT', '/iam/auth/v1/policies/o/organization', { policy: { bindings: [] } });
    const writes = emu.stats.writes;
    const apply = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('error: the saved plan plan.json is stale; nothing was written. Make a new plan.');
    expect(apply.stderr).toContain('Vod/v: the live resource changed since the plan was made');
    expect(apply.stderr).toContain('Policy/org: the live resource changed since the plan was made');
    expect(apply.stderr).not.toContain('Vod/same');
    expect(emu.stats.writes).toBe(writes);
  });

  it('refuses when the configuration changed, or for another environment', async () => {
    emu = await emulator(seed());
    const dir = docs();
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    const other = await runCli(['apply', dir, '--base-url', `${emu.url}/other`, '--plan', 'plan.json', '--yes'], {
      cwd: dir,
    });
    expect(other.stderr).toMatch(
      /the plan was made for environment default at http:\/\/127\.0\.0\.1:\d+\/, not default at .*\/other/,
    );
    writeFileSync(join(dir, 'b.yaml'), 'kind: Vod\nname: extra\nid: v9\nspec: {}\n');
    const changed = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('the configuration (documents or variables) changed since the plan was made');
    expect(emu.stats.writes).toBe(0);
  });

  it('a plan file of another format version, or not a plan at all, is refused by the plan schema', async () => {
    const dir = docs();
    writeFileSync(join(dir, 'plan.json'), JSON.stringify({ format_version: 2, changes: [], summary: {} }));
    const run = await runCli(['apply', dir, '--base-url', 'http://127.0.0.1:9', '--plan', 'plan.json', '--yes'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /plan\.json is not a tapedeck plan of this version: .*missing required field tapedeck_version.*format_version: must be 1/,
    );
  });

  it('applies a saved plan at most once: the second apply of the same file is refused, nothing written', async () => {
    emu = await emulator(seed());
    const dir = docs();
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    const first = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(first.code).toBe(0);
    const writes = emu.stats.writes;
    const again = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /the state moved since the plan was made \(serial 0 of a new state, now 1 of [0-9a-f-]{36}\)/,
    );
    expect(emu.stats.writes).toBe(writes);
  });

  it.each([
    [
      'a request path',
      (p: SavedPlan) => {
        p.changes.find((c) => c.request)!.request!.path = '/streaming/vods/v1/other';
      },
      /was edited after it was made/,
    ],
    [
      'the tapedeck version',
      (p: SavedPlan) => {
        p.tapedeck_version = '0.0.1';
      },
      /was made by tapedeck 0\.0\.1; this is tapedeck/,
    ],
    [
      'a field into the wrong type',
      (p: SavedPlan) => {
        (p.changes[0] as { action: unknown }).action = 'delete';
      },
      /is not a tapedeck plan of this version: changes\[0\]\.action/,
    ],
    [
      'a request, with the checksum made again',
      (p: SavedPlan) => {
        const c = p.changes.find((x) => x.address === 'Vod/v')!;
        c.request!.body = { vod_id: 'v1', vod: { name: 'Written by an attacker' }, update_mask: 'name' };
        p.checksum = planChecksum(p);
      },
      /Vod\/v: the saved change is not what the documents and the state give/,
    ],
  ])('an edited saved plan (%s) is refused, nothing written', async (_, edit, message) => {
    emu = await emulator(seed());
    const dir = docs();
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as SavedPlan;
    edit(plan);
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    const run = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(emu.stats.writes).toBe(0);
  });
});

describe('a saved plan that is not a file to read', () => {
  it('apply --plan /dev/zero ends with a clear error instead of hanging', async () => {
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'x' } } });
    const run = await runCli(['apply', dir, '--base-url', 'http://127.0.0.1:9', '--plan', '/dev/zero', '--yes'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/saved plan \/dev\/zero (is over \d+ bytes|: not valid JSON)/);
  });
});

describe('an apply that changes nothing', () => {
  // The CI recipe's case: a pull request's plan is saved and reviewed while main's scheduled apply finds nothing to do.
  it('leaves the state as it was (same serial, same text), so a plan saved before it still applies', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    const state = join(testdir({}), 'shared.state.json');
    const checkout = (name: string) =>
      testdir({
        'tapedeck.yaml': 'version: 1\nname: platform\n',
        'a.yaml': [{ kind: 'Vod', name: 'v', id: 'v1', spec: { name } }],
      });
    const main = checkout('Old');
    const pull = checkout('New');
    const run = (dir: string, ...args: string[]) =>
      runCli([args[0], ...against(emu!.url, dir), '--state', state, ...args.slice(1)], { cwd: dir });
    expect((await run(main, 'apply', '--yes')).code).toBe(0);
    const before = readFileSync(state, 'utf8');
    expect((await run(pull, 'plan', '--out', 'plan.json')).code).toBe(0);
    const idle = await run(main, 'apply', '--yes');
    expect(idle.code, idle.stderr).toBe(0);
    expect(readFileSync(state, 'utf8')).toBe(before);
    const saved = await runCli(['apply', '--plan', 'plan.json', '--base-url', emu.url, '--state', state, '--yes'], {
      cwd: pull,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(emu.store.collections.get('vods')!.get('v1')!.name).toBe('New');
    expect(JSON.parse(readFileSync(state, 'utf8')).serial).toBe(JSON.parse(before).serial + 1);
  });
});
