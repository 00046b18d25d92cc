// tapedeck show FILE (issue 17): a saved plan printed as plan printed it, in each format, checked as apply --plan
// checks it, without a token or a request.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { planChecksum } from '../../src/plan/saved.js';
import type { Plan } from '../../src/types.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await emulator({
    vods: [
      { id: 'v1', project_id: 'p', name: 'Old' },
      { id: 'v2', project_id: 'p', name: 'Gone' },
    ],
  });
  // One of each action a plan shows: an update, a create, a release (Vod/gone is in the state, no longer declared).
  dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'gone', id: 'v2', spec: { name: 'Gone' } } });
  expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
  writeFileSync(
    join(dir, 'a.yaml'),
    [
      'kind: Vod\nname: v\nid: v1\nspec:\n  name: New\n',
      'kind: Offer\nname: o\nspec:\n  project_id: p\n  name: Premium\n  priority: 10\n',
    ].join('---\n'),
  );
  expect((await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir })).code).toBe(0);
  // The golden files must not depend on the emulator's port or the state's lineage: both set to fixed values, and
  // the checksum made again, as the plan would be on a fixed platform.
  const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Plan;
  plan.environment.base_url = 'https://api.example.com/';
  plan.state.lineage = '00000000-0000-4000-8000-000000000000';
  plan.checksum = planChecksum(plan);
  writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan, null, 2));
});
afterAll(() => emu.close());

/** show, with no token and its requests counted: it must send none. */
async function show(...args: string[]) {
  const before = emu.stats.reads + emu.stats.writes;
  const run = await runCli(['show', ...args], { cwd: dir, env: { TAPEDECK_TOKEN: '' } });
  return { ...run, sent: emu.stats.reads + emu.stats.writes - before };
}

describe('tapedeck show', () => {
  it.each([
    ['text', 'show.txt'],
    ['markdown', 'show.md'],
    ['json', 'show.json'],
  ])('--format %s matches its golden file; no token, nothing sent', async (format, golden) => {
    const run = await show('plan.json', '--format', format);
    expect(run).toMatchObject({ code: 0, sent: 0 });
    await expect(run.stdout).toMatchFileSnapshot(`../fixtures/golden/${golden}`);
  });

  it('json is the saved plan itself; stderr says what it was made for', async () => {
    const run = await show('plan.json', '--json');
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')));
    expect(run.stderr).toBe(
      'plan.json: a plan for environment default at https://api.example.com/, made against state serial 1; apply it with tapedeck apply --plan plan.json\n',
    );
  });

  it('counts only what the changes say: an edited summary with its checksum made again changes nothing shown', async () => {
    const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Plan;
    plan.summary = { create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 3 };
    plan.checksum = planChecksum(plan);
    writeFileSync(join(dir, 'edited.json'), JSON.stringify(plan));
    for (const format of ['text', 'markdown']) {
      const run = await show('edited.json', '--format', format);
      expect(run.stdout).toContain('Plan: 1 to create, 1 to update, 1 to release, 0 unchanged.');
      expect(run.stdout).not.toContain('No changes');
    }
    expect(JSON.parse((await show('edited.json', '--json')).stdout).summary).toMatchObject({
      create: 1,
      update: 1,
      release: 1,
      noop: 0,
    });
  });

  it('--quiet prints the summary line only', async () => {
    const run = await show('plan.json', '--quiet');
    expect(run).toMatchObject({
      code: 0,
      stdout: 'Plan: 1 to create, 1 to update, 1 to release, 0 unchanged.\n',
      stderr: '',
    });
  });

  it.each([
    [
      'an edited plan',
      (p: Plan) => {
        p.changes[0].address = 'Vod/other';
      },
      /^error: saved plan \S*edited\.json was edited after it was made/,
    ],
    [
      "another version's plan",
      (p: Plan) => {
        p.tapedeck_version = '0.0.1';
      },
      /^error: saved plan \S*edited\.json was made by tapedeck 0\.0\.1/,
    ],
    ['something else', () => ({ hello: 'world' }), /^error: \S*edited\.json is not a tapedeck plan of this version/],
  ])('%s is refused, as apply --plan refuses it', async (_, edit, message) => {
    const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Plan;
    writeFileSync(join(dir, 'edited.json'), JSON.stringify(edit(plan) ?? plan));
    const run = await show('edited.json');
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(message) });
  });

  it.each([
    [['missing.json'], /^error: saved plan .*missing\.json: cannot read it \(ENOENT\)\n$/],
    [
      ['plan.json', '--format', 'github'],
      /^error: --format github \(GitHub Actions annotations\) is only for tapedeck validate, plan and apply/,
    ],
    [[], /^error: missing required argument 'file'\n$/],
  ])('show %j: one clear line, exit 1', async (args, message) => {
    const run = await show(...args);
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(message) });
  });
});
