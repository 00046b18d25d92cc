// Released resources are remembered: a document that comes back (at its address, or by moved_from) takes its
// resource back (action restore), never a create of a second one.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const ruleset = (name: string, extra: object = {}, spec: object = {}) => ({
  kind: 'VideoProtectionRuleset',
  name,
  ...extra,
  spec: { project_id: 'p', name: 'Geo', geo_restrictions_disallow: { country_codes: ['RU'] }, ...spec },
});
const offer = { kind: 'Offer', name: 'basic', spec: { project_id: 'p', name: 'Basic', priority: 1 } };
const write = (dir: string, docs: object[]) =>
  writeFileSync(join(dir, 'a.yaml'), docs.map((d) => stringify(d)).join('---\n'));
const stateOf = (dir: string) => JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8')).resources;
const rulesets = () => emu!.store.collections.get('video_protection_rulesets')!.size;
const posts = () => emu!.writes().filter((c) => c.method === 'POST').length;

/** A ruleset applied, then its document removed and the release applied: its id. */
async function releasedRuleset(dir: string): Promise<string> {
  expect((await runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
  const id = stateOf(dir)['VideoProtectionRuleset/geo'].id;
  write(dir, [offer]);
  expect((await runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
  return id;
}

describe('released resources are remembered', () => {
  it('a release keeps the id in the state, marked released, and state list shows it', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [ruleset('geo'), offer] });
    const id = await releasedRuleset(dir);
    expect(stateOf(dir)['VideoProtectionRuleset/geo']).toMatchObject({
      kind: 'VideoProtectionRuleset',
      id,
      released_at: expect.any(String),
    });
    const list = await runCli(['state', 'list', dir], { cwd: dir });
    expect(list.stdout).toContain(`VideoProtectionRuleset/geo\t${id}\treleased`);
    const json = JSON.parse((await runCli(['state', 'list', dir, '--json'], { cwd: dir })).stdout);
    expect(json['VideoProtectionRuleset/geo']).toMatchObject({ id, released: true });
    // Released once: the next plan does not release it again.
    const plan = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  it('a document that comes back takes its ruleset back (restore, fields brought back): never a second one', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [ruleset('geo'), offer] });
    const id = await releasedRuleset(dir);
    // Someone changed it on the platform while it was not managed: the restore brings the document's fields back.
    const changed = await call(emu, 'PATCH', `/streaming/video_protection/v1/rulesets/${id}`, {
      video_protection_ruleset_id: id,
      video_protection_ruleset: { name: 'Geo (old)' },
      update_mask: 'name',
    });
    expect(changed.status).toBe(200);
    write(dir, [ruleset('geo'), offer]);
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json', '--detailed-exitcode'], { cwd: dir });
    expect(plan.code).toBe(2);
    const json = JSON.parse(plan.stdout);
    expect(json.summary).toMatchObject({ create: 0, restore: 1 });
    expect(json.changes.find((c: { address: string }) => c.address === 'VideoProtectionRuleset/geo')).toMatchObject({
      action: 'restore',
      id,
      update_mask: ['name'],
    });
    const text = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(text.stdout).toContain(`VideoProtectionRuleset/geo (${id}) will be restored`);
    expect(text.stdout).toContain('Plan: 0 to create, 0 to update, 1 to restore, 1 unchanged.');
    const md = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toMatch(/\| `VideoProtectionRuleset\/geo` \| restore \|/);
    const before = posts();
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir });
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout).results).toEqual([
      { address: 'VideoProtectionRuleset/geo', action: 'restore', outcome: 'applied', id },
    ]);
    expect(posts()).toBe(before);
    expect(rulesets()).toBe(1);
    expect(emu.store.collections.get('video_protection_rulesets')!.get(id)!.name).toBe('Geo');
    expect(stateOf(dir)['VideoProtectionRuleset/geo'].released_at).toBeUndefined();
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it('a saved plan with a restore is shown as restore', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [ruleset('geo'), offer] });
    await releasedRuleset(dir);
    write(dir, [ruleset('geo'), offer]);
    expect((await runCli(['plan', ...against(emu.url, dir), '--out', 'p.json'], { cwd: dir })).code).toBe(0);
    const show = await runCli(['show', join(dir, 'p.json')], { cwd: dir });
    expect(show.stdout).toContain('will be restored');
    expect(
      (await runCli(['apply', '--plan', join(dir, 'p.json'), '--base-url', emu.url, '--yes'], { cwd: dir })).code,
    ).toBe(0);
    expect(rulesets()).toBe(1);
  });

  it('moved_from claims a released entry: restored under the new address, nothing created', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [ruleset('geo'), offer] });
    const id = await releasedRuleset(dir);
    write(dir, [ruleset('geo-eu', { moved_from: 'VideoProtectionRuleset/geo' }), offer]);
    const plan = JSON.parse((await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir })).stdout);
    expect(plan.changes.find((c: { address: string }) => c.address === 'VideoProtectionRuleset/geo-eu')).toMatchObject({
      action: 'restore',
      id,
      moved_from: 'VideoProtectionRuleset/geo',
    });
    expect(plan.summary).toMatchObject({ create: 0, restore: 1 });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect(rulesets()).toBe(1);
    expect(Object.keys(stateOf(dir)).sort()).toEqual(['Offer/basic', 'VideoProtectionRuleset/geo-eu']);
    expect(stateOf(dir)['VideoProtectionRuleset/geo-eu']).toMatchObject({ id });
  });

  it('--target does not count a released entry as a resource to release', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [ruleset('geo'), offer] });
    await releasedRuleset(dir);
    const run = await runCli(['plan', ...against(emu.url, dir), '--target', 'VideoProtectionRuleset/geo'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '--target VideoProtectionRuleset/geo matches no document and no resource in the state',
    );
  });
});
