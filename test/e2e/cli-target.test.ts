// --target ADDRESS (issue 17): plan and apply only what the targets name and what it references; the rest is not
// read; a release only when a target names it; the plan says it is partial; a targeted saved plan cannot pass for
// a full one.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import type { Plan } from '../../src/types.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator;
let dir: string;
beforeEach(async () => {
  emu = await emulator({
    offers: [{ id: 'off-base', project_id: 'p', name: 'Base' }],
    vods: ['v1', 'v2', 'v3'].map((id) => ({ id, project_id: 'p', name: 'Old' })),
  });
  // Offer/premium references Offer/base; Vod/old is in the state but no document declares it any more.
  dir = testdir({
    'offers.yaml': [
      { kind: 'Offer', name: 'base', id: 'off-base', spec: { name: 'Base 2' } },
      {
        kind: 'Offer',
        name: 'premium',
        spec: { project_id: 'p', name: 'Premium', billing_partner_offer_id: '${Offer/base.id}' },
      },
    ],
    'vods.yaml': [
      { kind: 'Vod', name: 'one', id: 'v1', spec: { name: 'New' } },
      { kind: 'Vod', name: 'two', id: 'v2', spec: { name: 'New' } },
    ],
    'tapedeck.yaml': 'version: 1\nname: targets\n',
    '.tapedeck/default.state.json': JSON.stringify({
      format_version: 1,
      configuration: 'targets',
      resources: { 'Vod/old': { kind: 'Vod', id: 'v3' } },
    }),
  });
});
afterEach(() => emu.close());

const plan = async (...flags: string[]) => {
  const run = await runCli(['plan', ...against(emu.url, dir), '--json', ...flags], { cwd: dir });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Plan;
};
const actions = (p: Plan) => p.changes.map((c) => `${c.action} ${c.address}`);
const readPaths = () =>
  emu
    .calls()
    .filter((c) => !c.write)
    .map((c) => c.path);

describe('plan --target', () => {
  it('plans the target and what it references; nothing else is read', async () => {
    const p = await plan('--target', 'Offer/premium');
    expect(actions(p)).toEqual(['update Offer/base', 'create Offer/premium']);
    expect(p.targets).toEqual(['Offer/premium']);
    expect(readPaths().some((path) => path.startsWith('/streaming/vods'))).toBe(false);
  });

  it('* matches any text; a target may be given more than once', async () => {
    expect(actions(await plan('--target', 'Vod/*'))).toEqual(['update Vod/one', 'update Vod/two', 'release Vod/old']);
    expect(actions(await plan('--target', 'Vod/one', '--target', '*/base')).sort()).toEqual([
      'update Offer/base',
      'update Vod/one',
    ]);
  });

  it('releases a state entry only when a target names it, alone if need be', async () => {
    expect(actions(await plan('--target', 'Vod/one'))).toEqual(['update Vod/one']);
    expect(actions(await plan('--target', 'Vod/old'))).toEqual(['release Vod/old']);
    expect(actions(await plan())).toContain('release Vod/old');
  });

  it('says the plan is partial, in text and in Markdown', async () => {
    const text = await runCli(['plan', ...against(emu.url, dir), '--target', 'Vod/one'], { cwd: dir });
    expect(text.stdout).toMatch(
      /^Partial plan \(--target Vod\/one\): only these resources and what they reference were read and compared; the rest of the configuration was left out\.\n\nPlan for environment default at .*\n\ntapedeck will make these changes:/,
    );
    const quiet = await runCli(['plan', ...against(emu.url, dir), '--target', 'Vod/one', '--quiet'], { cwd: dir });
    expect(quiet.stdout).toBe(
      'Partial plan (--target Vod/one): only these resources and what they reference were read and compared; the rest of the configuration was left out.\nPlan: 0 to create, 1 to update, 0 unchanged.\n',
    );
    const markdown = await runCli(['plan', ...against(emu.url, dir), '--target', 'Vod/*', '--format', 'markdown'], {
      cwd: dir,
    });
    expect(markdown.stdout).toMatch(
      /^### tapedeck plan for `default`\n\n> ⚠️ Partial plan \(`--target Vod\/\*`\): only these resources/,
    );
  });

  it('the configuration hash covers the targets: a targeted plan never passes for a full one, nor for another target', async () => {
    const hashes = [
      await plan(),
      await plan('--target', 'Vod/*'),
      await plan('--target', 'Vod/one', '--target', 'Vod/two'),
    ].map((p) => p.configuration_hash);
    expect(new Set(hashes).size).toBe(3);
    const again = await plan('--target', 'Vod/two', '--target', 'Vod/one');
    expect(again.configuration_hash).toBe(hashes[2]);
  });

  it.each([
    [
      ['--target', 'Vod/nope'],
      'error: --target Vod/nope matches no document and no resource in the state (addresses are Kind/name, e.g. Offer/premium; names are case-sensitive)\n',
    ],
    [
      ['--target', 'vod/one'],
      'error: --target vod/one matches no document and no resource in the state (addresses are Kind/name, e.g. Offer/premium; names are case-sensitive)\n',
    ],
    [
      ['--target', 'Vod one'],
      'error: --target takes an address Kind/name, where * stands for any text (Offer/premium, Offer/*, */basic), not "Vod one"\n',
    ],
  ])('%j is an error; nothing sent', async (flags, message) => {
    const run = await runCli(['plan', ...against(emu.url, dir), ...flags], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: message });
    expect(emu.stats.reads).toBe(0);
  });

  it('every document is still validated: an invalid one elsewhere stops a targeted plan', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'kind: Vod\nname: bad\nid: v9\nspec:\n  nmae: x\n');
    const run = await runCli(['plan', ...against(emu.url, dir), '--target', 'Vod/one'], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringContaining('bad.yaml:5:3: spec.nmae: unknown field') });
  });
});

describe('apply --target', () => {
  it('writes only the targeted resources and what they reference', async () => {
    const run = await runCli(['apply', ...against(emu.url, dir), '--target', 'Offer/premium', '--yes'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(emu.writes().map((c) => `${c.method} ${c.path}`)).toEqual([
      'PATCH /monetization/offers/v1/off-base',
      'POST /monetization/offers/v1',
    ]);
    const state = JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
    expect(Object.keys(state.resources).sort()).toEqual(['Offer/base', 'Offer/premium', 'Vod/old']);
  });

  it('a saved targeted plan applies with its own targets; another --target is refused', async () => {
    await runCli(['plan', ...against(emu.url, dir), '--target', 'Vod/one', '--out', 'plan.json'], { cwd: dir });
    const other = await runCli(
      ['apply', '--plan', 'plan.json', '--base-url', emu.url, '--target', 'Vod/two', '--yes'],
      { cwd: dir },
    );
    expect(other).toMatchObject({
      code: 1,
      stderr:
        'error: the saved plan plan.json was made with --target Vod/one, not --target Vod/two: leave --target out (the plan applies with its own), or make the plan again\n',
    });
    const run = await runCli(['apply', '--plan', 'plan.json', '--base-url', emu.url, '--yes'], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(emu.writes().map((c) => `${c.method} ${c.path}`)).toEqual(['PATCH /streaming/vods/v1/v1']);
  });

  it('--target given to apply a full saved plan is refused', async () => {
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    const run = await runCli(['apply', '--plan', 'plan.json', '--base-url', emu.url, '--target', 'Vod/one', '--yes'], {
      cwd: dir,
    });
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^error: the saved plan plan\.json was made without --target, not --target Vod\/one/,
      ),
    });
    expect(emu.stats.writes).toBe(0);
  });
});

describe('--target and the default configuration', () => {
  it('a new default brings the configuration giving the default up: one plan, the hand-over first, nothing blamed', async () => {
    const cfg = (id: string, name: string, isDefault: boolean) => ({
      id,
      project_id: 'p',
      name,
      type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS',
      default: isDefault,
    });
    const own = await emulator({ configurations: [cfg('cfg_old', 'old', true)] });
    const doc = (name: string, isDefault: boolean) => ({
      kind: 'StreamingConfiguration',
      name,
      spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault },
    });
    const other = {
      kind: 'StreamingConfiguration',
      name: 'overlays',
      spec: { project_id: 'p', name: 'overlays', type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS', default: false },
    };
    const d = testdir({ 'a.yaml': [doc('new', true), doc('old', false), other] });
    try {
      const run = await runCli(['plan', ...against(own.url, d), '--json', '--target', 'StreamingConfiguration/new'], {
        cwd: d,
      });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const p = JSON.parse(run.stdout) as Plan;
      // Another type's configuration has no default to give up: it stays out.
      expect(actions(p)).toEqual(['update StreamingConfiguration/old', 'create StreamingConfiguration/new']);
      const apply = await runCli(['apply', ...against(own.url, d), '--yes', '--target', 'StreamingConfiguration/new'], {
        cwd: d,
      });
      expect(apply.code, apply.stderr).toBe(0);
      expect([...own.store.collections.get('configurations')!.values()].map((c) => [c.name, c.default])).toEqual([
        ['old', false],
        ['new', true],
      ]);
    } finally {
      await own.close();
    }
  });
});
