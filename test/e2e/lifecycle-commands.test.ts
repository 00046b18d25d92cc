// Lifecycle: saved plans applied from anywhere, export into a configured directory, moving a state entry by hand.
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
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
  const checkout = (url: string) =>
    testdir({
      'platform/tapedeck.yaml': `version: 1\nenvironments:\n  staging:\n    base_url: ${url}\n    vars: { label: Staged }\n  production:\n    base_url: ${url}\n    vars: { label: Live }\n`,
      'platform/vod.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: '${var.label}' } },
    });
  const seed = { vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] };

  it('uses the configuration directory and the environment the plan records, relative to the plan file', async () => {
    emu = await emulator(seed);
    const made = checkout(emu.url);
    const plan = await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plans/plan.json'], { cwd: made });
    expect(plan.code).toBe(0);
    expect(JSON.parse(readFileSync(join(made, 'plans/plan.json'), 'utf8')).configuration).toEqual({
      dir: '../platform',
    });
    // The checkout moves to another place (another CI job), and apply runs from a directory unrelated to both.
    const moved = testdir({});
    cpSync(made, moved, { recursive: true });
    const elsewhere = testdir({});
    const apply = await runCli(['apply', '--plan', join(moved, 'plans/plan.json'), '--yes'], { cwd: elsewhere });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(emu.stats.writes).toBe(1);
    expect(
      JSON.parse(readFileSync(statePath(join(moved, 'platform'), 'staging'), 'utf8')).resources['Vod/v'],
    ).toMatchObject({ id: 'v1' });
    const again = await runCli(['plan', join(moved, 'platform'), '--env', 'staging', '--detailed-exitcode'], {
      cwd: elsewhere,
    });
    expect(again.code).toBe(0);
  });

  it("a DIR given to apply that is not the plan's configuration is refused, naming both; nothing sent", async () => {
    emu = await emulator(seed);
    const dir = checkout(emu.url);
    await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plan.json'], { cwd: dir });
    const reads = emu.stats.reads;
    const run = await runCli(['apply', '.', '--plan', 'plan.json', '--yes'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: the saved plan plan.json was made from the configuration in ${join(dir, 'platform')}, not ${dir}: leave DIR out, or make the plan again\n`,
    );
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
    expect(run.stderr).toBe(
      `error: the saved plan plan.json records its configuration as platform (relative to the plan file), but ${join(alone, 'platform')} does not exist: move the plan file together with its checkout, or make the plan again\n`,
    );
    expect(emu.stats).toMatchObject({ reads, writes: 0 });
  });

  it.each([
    ['--env', ['--env', 'production'], {}],
    ['TAPEDECK_ENV', [], { TAPEDECK_ENV: 'production' }],
  ])(
    "an environment given by %s that is not the plan's is refused, naming both; nothing sent",
    async (from, args, env) => {
      emu = await emulator(seed);
      const dir = checkout(emu.url);
      await runCli(['plan', 'platform', '--env', 'staging', '--out', 'plan.json'], { cwd: dir });
      const reads = emu.stats.reads;
      const run = await runCli(['apply', '--plan', 'plan.json', ...args, '--yes'], { cwd: dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `error: the saved plan plan.json was made for environment staging, not production (${from}): leave ${from} out, or make the plan again\n`,
      );
      expect(emu.stats).toMatchObject({ reads, writes: 0 });
    },
  );
});

describe('export into a directory that already holds documents and a state', () => {
  const seed = {
    offers: [
      { id: 'off1', project_id: 'p', name: 'Basic' },
      { id: 'off2', project_id: 'p', name: 'Premium' },
      { id: 'off3', project_id: 'p', name: 'Basic' },
      { id: 'off9', project_id: 'p', name: 'Basic' },
    ],
    configurations: [
      { id: 'cfg1', project_id: 'p', name: 'HD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS' },
      { id: 'cfg2', project_id: 'p', name: 'SD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS' },
    ],
    policies: [{ resource_key: 'o1/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } }],
  };
  // Documents manage off1 (its id), off2 (the state's id for its address), cfg1 (its natural key) and the policy
  // (its key). The state also holds Offer/basic-2 -> off9, which no document declares any more.
  const configured = () =>
    testdir({
      'offer.yaml': [
        { kind: 'Offer', name: 'basic', id: 'off1', spec: { name: 'Basic' } },
        { kind: 'Offer', name: 'premium', spec: { project_id: 'p', name: 'Premium' } },
      ],
      'rest.yaml': [
        {
          kind: 'StreamingConfiguration',
          name: 'hd',
          spec: { project_id: 'p', name: 'HD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS' },
        },
        {
          kind: 'Policy',
          name: 'org',
          spec: { resource_key: 'o1/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } },
        },
      ],
      '.tapedeck/default.state.json': JSON.stringify({
        format_version: 1,
        lineage: 'l-1',
        serial: 4,
        resources: {
          'Offer/premium': { kind: 'Offer', id: 'off2', fields: { name: 'Premium', project_id: 'p' } },
          'Offer/basic-2': { kind: 'Offer', id: 'off9' },
        },
      }),
    });

  it('writes only what no document manages, in new files; never rebinds or changes a state entry (--force or not)', async () => {
    emu = await emulator(seed);
    const dir = configured();
    const userOffers = readFileSync(join(dir, 'offer.yaml'), 'utf8');
    const stateBefore = JSON.parse(readFileSync(statePath(dir), 'utf8'));
    const run = await runCli(['export', '.', '--base-url', emu.url, '--id', 'Policy=o1/organization', '--force'], {
      cwd: dir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'StreamingConfiguration cfg1: already managed by StreamingConfiguration/hd, skipped',
        'Offer off1: already managed by Offer/basic, skipped',
        'Offer off2: already managed by Offer/premium, skipped',
        'Policy o1/organization: already managed by Policy/org, skipped',
        'Exported 3 resources into 2 files in .; recorded them in .tapedeck/default.state.json; skipped 4 that documents in . already manage.',
        '',
      ].join('\n'),
    );
    // The user's file is untouched; the new offers go to a file of their own, under addresses nobody holds.
    expect(readFileSync(join(dir, 'offer.yaml'), 'utf8')).toBe(userOffers);
    expect(readFileSync(join(dir, 'offer-2.yaml'), 'utf8')).toBe(
      'kind: Offer\nname: basic-3\nid: off3\nspec:\n  project_id: p\n  name: Basic\n' +
        '---\nkind: Offer\nname: basic-2\nid: off9\nspec:\n  project_id: p\n  name: Basic\n',
    );
    expect(readFileSync(join(dir, 'streaming-configuration.yaml'), 'utf8')).toMatch(
      /^kind: StreamingConfiguration\nname: sd\nspec:\n/,
    );
    const state = JSON.parse(readFileSync(statePath(dir), 'utf8'));
    expect(state.resources).toEqual({
      ...stateBefore.resources,
      'Offer/basic-3': { kind: 'Offer', id: 'off3' },
      'StreamingConfiguration/sd': { kind: 'StreamingConfiguration', id: 'cfg2' },
    });
    const plan = await runCli(['plan', '.', '--base-url', emu.url, '--json'], { cwd: dir });
    expect(plan.stderr).toBe('');
    const changes = JSON.parse(plan.stdout).changes as { address: string; action: string; id?: string }[];
    expect(changes.map((c) => [c.address, c.action, c.id]).sort()).toEqual([
      ['Offer/basic', 'noop', 'off1'],
      ['Offer/basic-2', 'noop', 'off9'],
      ['Offer/basic-3', 'noop', 'off3'],
      ['Offer/premium', 'noop', 'off2'],
      ['Policy/org', 'noop', 'o1/organization'],
      ['StreamingConfiguration/hd', 'noop', 'cfg1'],
      ['StreamingConfiguration/sd', 'noop', 'cfg2'],
    ]);
  });

  it('exporting again writes nothing and leaves the state as it was', async () => {
    emu = await emulator(seed);
    const dir = configured();
    await runCli(['export', '.', '--base-url', emu.url], { cwd: dir });
    const state = readFileSync(statePath(dir), 'utf8');
    const again = await runCli(['export', '.', '--base-url', emu.url, '--quiet'], { cwd: dir });
    expect(again).toMatchObject({
      code: 0,
      stderr: '',
      stdout: 'Exported 0 resources into 0 files in .; skipped 6 that documents in . already manage.\n',
    });
    expect(readFileSync(statePath(dir), 'utf8')).toBe(state);
    expect(existsSync(join(dir, 'offer-3.yaml'))).toBe(false);
  });
});

describe('state mv OLD NEW [DIR]', () => {
  const offer = (name: string) => ({ 'a.yaml': { kind: 'Offer', name, spec: { project_id: 'p', name: 'O' } } });
  /** An applied offer (Offer/o, created) and two vods (Vod/v, Vod/w), all in the state. */
  const applied = async () => {
    emu = await emulator({
      vods: [
        { id: 'v1', project_id: 'p', name: 'V' },
        { id: 'v2', project_id: 'p', name: 'W' },
      ],
    });
    const dir = testdir({
      ...offer('o'),
      'b.yaml': [
        { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'V' } },
        { kind: 'Vod', name: 'w', id: 'v2', spec: { name: 'W' } },
      ],
    });
    expect((await runCli(['apply', dir, '--base-url', emu.url, '--yes'], { cwd: dir })).code).toBe(0);
    return dir;
  };

  it('moves the entry (id and last applied fields); plan with the document renamed creates nothing', async () => {
    const dir = await applied();
    const before = JSON.parse(readFileSync(statePath(dir), 'utf8')).resources['Offer/o'];
    const run = await runCli(['state', 'mv', 'Offer/o', 'Offer/premium', dir], { cwd: dir });
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: `Moved Offer/o to Offer/premium (${before.id}). The platform was not changed; name the document premium.\n`,
    });
    const after = JSON.parse(readFileSync(statePath(dir), 'utf8')).resources;
    expect(after['Offer/o']).toBeUndefined();
    expect(after['Offer/premium']).toEqual(before);
    writeFileSync(join(dir, 'a.yaml'), stringify(offer('premium')['a.yaml']));
    const plan = await runCli(['plan', dir, '--base-url', emu!.url, '--json'], { cwd: dir });
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ create: 0, update: 0 });
    expect(
      JSON.parse(plan.stdout).changes.find((c: { address: string }) => c.address === 'Offer/premium'),
    ).toMatchObject({ action: 'noop', id: before.id });
  });

  it.each([
    [
      'a missing OLD',
      ['Offer/nope', 'Offer/x'],
      'error: Offer/nope is not in the state STATE (see tapedeck state list)\n',
    ],
    [
      'an existing NEW',
      ['Vod/v', 'Vod/w'],
      'error: Vod/w is in the state already (v2): forget it first, or choose another name\n',
    ],
    [
      'NEW equal to OLD',
      ['Vod/v', 'Vod/v'],
      'error: Vod/v is in the state already (v1): forget it first, or choose another name\n',
    ],
    ['another kind', ['Offer/o', 'Vod/o'], 'error: state mv moves an entry within one kind, not from Offer to Vod\n'],
    [
      'a NEW no document could have',
      ['Offer/o', 'Offer/has space'],
      'error: Offer/has space: "has space" is not a valid name: use letters, digits, ".", "_" and "-", starting with a letter or digit\n',
    ],
    [
      'an address without a kind',
      ['o', 'Offer/x'],
      'error: o is not an address: write Kind/name, e.g. Offer/premium\n',
    ],
  ])('refuses %s: one line, exit 1, the state unchanged', async (_, [from, to], message) => {
    const dir = await applied();
    const before = readFileSync(statePath(dir), 'utf8');
    const run = await runCli(['state', 'mv', from, to, dir], { cwd: dir });
    expect(run).toEqual({ code: 1, stdout: '', stderr: message.replace('STATE', statePath(dir)) });
    expect(readFileSync(statePath(dir), 'utf8')).toBe(before);
  });
});
