// The everyday changes to a configuration: renames, removals, fields no longer managed, and every write read back.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';

let emu: Emulator | undefined;
let proxy: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await proxy?.close();
  await emu?.close();
  emu = proxy = undefined;
});

const premium = (name: string, extra: object = {}) => ({ kind: 'Offer', name, ...extra, spec: { project_id: 'p', name: 'Premium', priority: 3 } });
const write = (dir: string, docs: object[]) => writeFileSync(join(dir, 'a.yaml'), docs.map((d) => stringify(d)).join('---\n'));
const stateOf = (dir: string) => JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8')).resources;
const offerCount = () => emu!.store.collections.get('offers')!.size;

describe('renames', () => {
  it('moved_from moves the state entry: nothing is created, the plan says so, the next plan is empty', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': premium('premium') });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    const id = stateOf(dir)['Offer/premium'].id;
    write(dir, [premium('premium-monthly', { moved_from: 'Offer/premium' })]);
    const plan = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Offer/premium has moved to Offer/premium-monthly');
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 1 to move, 0 unchanged.');
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir });
    expect(JSON.parse(apply.stdout).results).toEqual([{ address: 'Offer/premium-monthly', action: 'move', outcome: 'applied', id }]);
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/premium-monthly']);
    expect(offerCount()).toBe(1);
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it('a rename without moved_from is shown as a create and a release, with a hint naming the fix', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': premium('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [premium('premium-monthly')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.stdout).toContain('+ Offer/premium-monthly will be created');
    expect(plan.stdout).toContain('this looks like a rename of Offer/premium: add `moved_from: Offer/premium`');
    expect(plan.stdout).toMatch(/- Offer\/premium \(\w+\) will be released: no longer declared; it stays on the platform/);
  });

  it.each([
    ['another kind', { moved_from: 'Vod/premium' }, /moved_from must name another Offer/],
    ['an address still declared', { moved_from: 'Offer/other' }, /Offer\/other is still declared/],
  ])('moved_from naming %s is a located validation error', async (_, extra, message) => {
    const dir = testdir({ 'a.yaml': [premium('premium', extra), premium('other')] });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/a\.yaml:\d+:\d+: /);
    expect(run.stderr).toMatch(message);
  });
});

describe('removals', () => {
  it('a document removed is released: shown in every format, counted, exit 2, and marked released in the state by apply', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [premium('premium'), premium('basic')] });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [premium('premium')]);
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json', '--detailed-exitcode'], { cwd: dir });
    expect(plan.code).toBe(2);
    const json = JSON.parse(plan.stdout);
    expect(json.summary).toMatchObject({ release: 1, noop: 1 });
    expect(json.changes.find((c: { address: string }) => c.address === 'Offer/basic')).toMatchObject({ action: 'release', id: stateOf(dir)['Offer/basic'].id });
    const md = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toMatch(/\| ➖ \| `Offer\/basic` \| release \|/);
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/basic', 'Offer/premium']);
    expect(stateOf(dir)['Offer/basic'].released_at).toEqual(expect.any(String));
    expect(offerCount()).toBe(2);
  });

  it('a block removed from a document is no longer managed, and the plan says so instead of "No changes" alone', async () => {
    emu = await emulator({ video_protection_rulesets: [{ id: 'r1', project_id: 'p', name: 'Geo' }] });
    const ruleset = (spec: object) => ({ kind: 'VideoProtectionRuleset', name: 'geo', id: 'r1', spec: { name: 'Geo', ...spec } });
    const dir = testdir({ 'a.yaml': ruleset({ drm: { enabled: true } }) });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [ruleset({})]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.stdout).toContain('drm.enabled is no longer managed: it stays as it is on the platform');
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(stateOf(dir)['VideoProtectionRuleset/geo'].fields).toEqual({ name: 'Geo' });
    expect((await runCli(['plan', ...against(emu.url, dir)], { cwd: dir })).stdout).not.toContain('no longer managed');
  });
});

describe('every write is read back', () => {
  it('a field the platform did not keep is reported per resource, exit 1', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    // The platform answers the PATCH as if it took it, but never stores it.
    proxy = await faultyProxy(emu.url, (req) => (req.method === 'PATCH' ? { status: 200, forward: false } : undefined));
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.results[0]).toMatchObject({ outcome: 'applied', not_kept: ['name (sent "New", platform has "Old")'] });
    expect(result.summary).toMatchObject({ not_kept: 1 });
    expect(run.stderr).toContain('error: Vod/v: not kept: name (sent "New", platform has "Old")');
  });

  it('what the platform kept as written passes: creates and updates alike', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    const dir = testdir({ 'a.yaml': [{ kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } }, premium('premium')] });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).results.map((r: { not_kept?: string[] }) => r.not_kept)).toEqual([undefined, undefined]);
    expect(emu.calls().filter((c) => c.method === 'GET' && /\/(v1|off_\w+)$/.test(c.path)).length).toBeGreaterThanOrEqual(2);
  });
});

describe('the wrong platform', () => {
  it('a state used against another platform is refused before anything is read, naming both', async () => {
    emu = await emulator({});
    const other = await emulator({});
    const dir = testdir({ 'a.yaml': premium('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    const reads = other.stats.reads;
    const run = await runCli(['plan', ...against(other.url, dir)], { cwd: dir });
    await other.close();
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`belongs to environment default at ${emu.url}, not default at ${other.url}; nothing was read or written`);
    expect(other.stats.reads).toBe(reads);
  });

  it('a resource the state knows that the platform does not have fails the plan, unless --recreate-missing', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': premium('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    const id = stateOf(dir)['Offer/premium'].id;
    emu.store.collections.get('offers')!.delete(id);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`Offer/premium: the state knows it as Offer ${id}, but the platform has no such Offer. If it was deleted, pass --recreate-missing`);
    const again = await runCli(['apply', ...against(emu.url, dir), '--yes', '--recreate-missing'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(offerCount()).toBe(1);
  });
});

describe('order the platform rules need', () => {
  it('moving default: true to another configuration unsets the old default first, in one apply', async () => {
    const cfg = (id: string, name: string, isDefault: boolean) => ({ id, project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault });
    emu = await emulator({ configurations: [cfg('cfg_old', 'old', true), cfg('cfg_new', 'new', false)] });
    const doc = (name: string, isDefault: boolean) => ({ kind: 'StreamingConfiguration', name, spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault } });
    // By address, StreamingConfiguration/new would come first.
    const dir = testdir({ 'a.yaml': [doc('new', true), doc('old', false)] });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json', '--concurrency', '1'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(emu.writes().map((c) => c.path)).toEqual(['/streaming/configurations/v1/cfg_old', '/streaming/configurations/v1/cfg_new']);
    expect(emu.store.collections.get('configurations')!.get('cfg_new')!.default).toBe(true);
  });
});

describe('order the platform rules need, when the first step fails', () => {
  it('the new default is skipped, not sent, when unsetting the old one fails', async () => {
    const cfg = (id: string, name: string, isDefault: boolean) => ({ id, project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault });
    emu = await emulator({ configurations: [cfg('cfg_old', 'old', true), cfg('cfg_new', 'new', false)] });
    proxy = await faultyProxy(emu.url, (req) => (req.method === 'PATCH' && req.url?.endsWith('/cfg_old') ? { status: 400, forward: false } : undefined));
    const doc = (name: string, isDefault: boolean) => ({ kind: 'StreamingConfiguration', name, spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault } });
    const dir = testdir({ 'a.yaml': [doc('new', true), doc('old', false)] });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const results = JSON.parse(run.stdout).results;
    expect(results.find((r: { address: string }) => r.address === 'StreamingConfiguration/new')).toMatchObject({ outcome: 'skipped' });
    expect(emu.writes().map((c) => c.path)).toEqual([]);
  });
});

describe('mistakes found by the plan, not the apply', () => {
  it('a duplicate_from that does not exist is a plan error located at the document', async () => {
    emu = await emulator({ events: [{ id: 'evt_template', project_id: 'p', title: 'T' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Event', name: 'final', duplicate_from: 'evt_tempalte', spec: { title: 'Final' } } });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/Event\/final: a\.yaml:3:\d+: duplicate_from evt_tempalte: no such Event on the platform/);
    expect(emu.stats.writes).toBe(0);
  });
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
    expect(change).toMatchObject({ action: 'replace', released_id: old, notes: [`project_id "p1" → "p2": a new Offer is created; the old one, ${old}, is released and stays on the platform`] });
    expect(change.id).toBeUndefined();
    expect(change.drift).toBeUndefined();
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ create: 0, replace: 1, release: 0 });
    const text = await runCli(['plan', ...against(emu.url, dir), '--var', 'project=p2'], { cwd: dir });
    expect(text.stdout).toContain(`-/+ Offer/premium will be replaced: a new Offer is written; the old one, ${old}, is released and stays on the platform`);
    expect(text.stdout).toContain('Plan: 0 to create, 0 to update, 1 to replace, 0 unchanged.');
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--var', 'project=p2'], { cwd: dir });
    expect(emu.writes().filter((c) => c.method === 'PATCH')).toEqual([]);
    const offers = [...emu.store.collections.get('offers')!.values()];
    expect(offers.map((o) => o.project_id).sort()).toEqual(['p1', 'p2']);
    expect(stateOf(dir)['Offer/premium'].id).not.toBe(old);
  });

  it.each([
    ['with an identity change', ['--var', 'project=p2'], (e: Emulator, _id: string) => e],
    ['with --recreate-missing (the old resource gone)', ['--var', 'project=p1', '--recreate-missing'], (e: Emulator, id: string) => e.store.collections.get('offers')!.delete(id)],
  ])('a rename %s releases the old address: the next plan is empty', async (_, flags, prepare) => {
    emu = await emulator({});
    const offer = (name: string, extra: object = {}) => ({ kind: 'Offer', name, ...extra, spec: { project_id: '${var.project}', name: 'Premium' } });
    const dir = testdir({ 'a.yaml': offer('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--var', 'project=p1'], { cwd: dir });
    prepare(emu, stateOf(dir)['Offer/premium'].id);
    write(dir, [offer('gold', { moved_from: 'Offer/premium' })]);
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', ...flags], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/gold']);
    const next = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode', flags[0], flags[1]], { cwd: dir });
    expect(next.stdout).not.toContain('will be released');
    expect(next.code).toBe(0);
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
      expect(run.stderr).toContain(`Offer/gold: moved_from Offer/premium is ${old} in the state, but the document's id is off_other`);
    }
    expect(emu.stats.writes).toBe(writes);
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/premium']);
  });

  it('a document naming its resource by id cannot move it to another project: a plan error', async () => {
    emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p1', name: 'Premium' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Offer', name: 'premium', id: 'off_1', spec: { project_id: 'p2', name: 'Premium' } } });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('Offer/premium: project_id "p1" → "p2": that names another Offer, and off_1 cannot be moved; remove id to create a new one');
  });

  it('a policy whose resource_key changed lets the old key go, and says so', async () => {
    emu = await emulator({});
    const policy = (key: string) => ({ kind: 'Policy', name: 'access', spec: { resource_key: key, policy: { bindings: [{ role_id: 'viewer', account_ids: ['a'] }] } } });
    const dir = testdir({ 'a.yaml': policy('p1/p1/project') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [policy('p2/p2/project')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.stdout).toContain('resource_key changed from p1/p1/project: the Policy there is released and stays as it is on the platform');
    expect(plan.stdout).toContain('-/+ Policy/access will be replaced: a new Policy is written at p2/p2/project; the old one, p1/p1/project, is released');
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
