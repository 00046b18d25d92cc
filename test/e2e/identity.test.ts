// A configuration's identity fields: a project_id, id or resource_key that changes makes a new resource, never a
// PATCH of the old one; and export only against the platform the state belongs to. Renames and removals are in
// lifecycle.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { premium, stateOf, write } from '../helpers/lifecycle.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('identity fields', () => {
  it('a project_id changed through a variable is a new resource and a release of the old, never a PATCH or drift', async () => {
    emu = await emulator({});
    const doc = { kind: 'Offer', name: 'premium', spec: { project_id: '${var.project}', name: 'Premium' } };
    const dir = testdir({ 'a.yaml': doc });
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--var', 'project=p1'], { cwd: dir });
    const old = stateOf(dir)['Offer/premium'].id;
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json', '--var', 'project=p2'], { cwd: dir });
    const change = JSON.parse(plan.stdout).changes[0];
    expect(change).toMatchObject({
      action: 'replace',
      released_id: old,
      notes: [
        `project_id "p1" → "p2": a new Offer is created; the old one, ${old}, is released and stays on the platform`,
      ],
    });
    expect(change.id).toBeUndefined();
    expect(change.drift).toBeUndefined();
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ create: 0, replace: 1, release: 0 });
    const text = await runCli(['plan', ...against(emu.url, dir), '--var', 'project=p2'], { cwd: dir });
    expect(text.stdout).toContain(
      `-/+ Offer/premium will be replaced: a new Offer is written; the old one, ${old}, is released and stays on the platform`,
    );
    expect(text.stdout).toContain('Plan: 0 to create, 0 to update, 1 to replace, 0 unchanged.');
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--var', 'project=p2'], { cwd: dir });
    expect(emu.writes().filter((c) => c.method === 'PATCH')).toEqual([]);
    const offers = [...emu.store.collections.get('offers')!.values()];
    expect(offers.map((o) => o.project_id).sort()).toEqual(['p1', 'p2']);
    expect(stateOf(dir)['Offer/premium'].id).not.toBe(old);
  });

  it.each([
    ['with an identity change', ['--var', 'project=p2'], (e: Emulator, _id: string) => e],
    [
      'with --recreate-missing (the old resource gone)',
      ['--var', 'project=p1', '--recreate-missing'],
      (e: Emulator, id: string) => e.store.collections.get('offers')!.delete(id),
    ],
  ])('a rename %s releases the old address: the next plan is empty', async (_, flags, prepare) => {
    emu = await emulator({});
    const offer = (name: string, extra: object = {}) => ({
      kind: 'Offer',
      name,
      ...extra,
      spec: { project_id: '${var.project}', name: 'Premium' },
    });
    const dir = testdir({ 'a.yaml': offer('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--var', 'project=p1'], { cwd: dir });
    prepare(emu, stateOf(dir)['Offer/premium'].id);
    write(dir, [offer('gold', { moved_from: 'Offer/premium' })]);
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', ...flags], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/gold']);
    const next = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode', flags[0], flags[1]], {
      cwd: dir,
    });
    expect(next.stdout).not.toContain('will be released');
    expect(next.code).toBe(0);
  });

  it.each([
    ['project_id', { project_id: 'p2' }],
    ['base_type', { base_type: 'BASE_TYPE_CREATIVE_WORK' }],
  ])(
    'a content type whose %s changed is read where it was and replaced; --recreate-missing never drops it',
    async (field, change) => {
      emu = await emulator({});
      const type = (spec: object = {}) => ({
        kind: 'ContentType',
        name: 'match',
        spec: { project_id: 'p1', base_type: 'BASE_TYPE_EVENT', name: 'Match', ...spec },
      });
      const dir = testdir({ 'a.yaml': type() });
      expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
      const old = stateOf(dir)['ContentType/match'].id;
      write(dir, [type(change)]);
      for (const flags of [[], ['--recreate-missing']]) {
        const plan = await runCli(['plan', ...against(emu.url, dir), '--json', ...flags], { cwd: dir });
        expect(plan.code, plan.stderr).toBe(0);
        expect(JSON.parse(plan.stdout).changes[0]).toMatchObject({ action: 'replace', released_id: old });
        expect(JSON.parse(plan.stdout).changes[0].notes[0]).toContain(`${field} `);
      }
      expect(
        (await runCli(['apply', ...against(emu.url, dir), '--yes', '--recreate-missing'], { cwd: dir })).code,
      ).toBe(0);
      const types = [...emu.store.collections.get('content_types')!.values()];
      expect(types.length).toBe(2);
      expect(types.find((t) => t.id === old)).toMatchObject({ project_id: 'p1', base_type: 'BASE_TYPE_EVENT' });
      expect(stateOf(dir)['ContentType/match'].id).not.toBe(old);
      expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
    },
  );

  it('a content type the state knows without where it was is not re-created on a 404: the platform may still have it', async () => {
    emu = await emulator({
      content_types: [{ id: 'ct_1', project_id: 'p1', base_type: 'BASE_TYPE_EVENT', name: 'Match' }],
    });
    const type = {
      kind: 'ContentType',
      name: 'match',
      spec: { project_id: 'p2', base_type: 'BASE_TYPE_EVENT', name: 'Match' },
    };
    const dir = testdir({ 'a.yaml': type });
    const state = { format_version: 1, resources: { 'ContentType/match': { kind: 'ContentType', id: 'ct_1' } } };
    mkdirSync(join(dir, '.tapedeck'), { recursive: true });
    writeFileSync(join(dir, '.tapedeck', 'default.state.json'), JSON.stringify(state));
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--recreate-missing'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the state does not record where it was');
    expect(emu.writes()).toEqual([]);
    expect(stateOf(dir)['ContentType/match'].id).toBe('ct_1');
  });

  it('moved_from on a document whose id names another resource is refused, naming both ids; nothing sent', async () => {
    emu = await emulator({ offers: [{ id: 'off_other', project_id: 'p', name: 'Other' }] });
    const dir = testdir({ 'a.yaml': premium('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    const old = stateOf(dir)['Offer/premium'].id;
    write(dir, [premium('gold', { moved_from: 'Offer/premium', id: 'off_other' })]);
    const writes = emu.stats.writes;
    for (const cmd of [['plan'], ['apply', '--yes']]) {
      const run = await runCli([cmd[0], ...against(emu.url, dir), ...cmd.slice(1)], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `Offer/gold: moved_from Offer/premium is ${old} in the state, but the document's id is off_other`,
      );
    }
    expect(emu.stats.writes).toBe(writes);
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/premium']);
  });

  it('a document naming its resource by id cannot move it to another project: a plan error', async () => {
    emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p1', name: 'Premium' }] });
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'premium', id: 'off_1', spec: { project_id: 'p2', name: 'Premium' } },
    });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'Offer/premium: project_id "p1" → "p2": that names another Offer, and off_1 cannot be moved; remove id to create a new one',
    );
  });

  it('a policy whose resource_key changed lets the old key go, and says so', async () => {
    emu = await emulator({});
    const policy = (key: string) => ({
      kind: 'Policy',
      name: 'access',
      spec: { resource_key: key, policy: { bindings: [{ role_id: 'viewer', account_ids: ['a'] }] } },
    });
    const dir = testdir({ 'a.yaml': policy('p1/p1/project') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [policy('p2/p2/project')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.stdout).toContain(
      'resource_key changed from p1/p1/project: the Policy there is released and stays as it is on the platform',
    );
    expect(plan.stdout).toContain(
      '-/+ Policy/access will be replaced: a new Policy is written at p2/p2/project; the old one, p1/p1/project, is released',
    );
    expect(plan.stdout).toContain('1 to replace');
    expect(plan.stdout).not.toContain('changed outside tapedeck');
  });
});

describe('export and the platform a state belongs to', () => {
  it('export with another platform than the state belongs to is refused, and the state is left as it was', async () => {
    emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'One' }] });
    const other = await emulator({ offers: [{ id: 'off_9', project_id: 'p', name: 'Nine' }] });
    const dir = testdir({ 'a.yaml': premium('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    const before = readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8');
    const run = await runCli(['export', dir, '--base-url', other.url, '--project', 'p'], { cwd: dir });
    await other.close();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`belongs to environment default at ${emu.url}, not default at ${other.url}`);
    expect(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8')).toBe(before);
  });
});
