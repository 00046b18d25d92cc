// The everyday changes to a configuration: renames, removals, fields no longer managed, and every write read back.
// Identity fields (a new project, id or key) and export are in identity.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';
import { premium, stateOf, write } from '../helpers/lifecycle.js';

let emu: Emulator | undefined;
let proxy: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await proxy?.close();
  await emu?.close();
  emu = proxy = undefined;
});

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
    expect(JSON.parse(apply.stdout).results).toEqual([
      { address: 'Offer/premium-monthly', action: 'move', outcome: 'applied', id },
    ]);
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/premium-monthly']);
    expect(offerCount()).toBe(1);
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it('a rename without moved_from of a kind with a natural key stops the plan, naming the entry and the moved_from that keeps it', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': premium('premium') });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [premium('premium-monthly')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /^a\.yaml:\d+:\d+: Offer\/premium-monthly: the platform already has Offer \w+ with the same project_id, name, managed by Offer\/premium, which no document declares any more: if this document replaces it, take it back with `moved_from: Offer\/premium`/m,
    );
    expect(offerCount()).toBe(1);
  });

  it('a rename without moved_from of a kind that cannot be looked for is shown as a create and a release, with a hint naming the fix', async () => {
    emu = await emulator({});
    const phase = (name: string) => ({
      kind: 'StandingPhase',
      name,
      spec: { project_id: 'p', localized_name: { en: 'Season' } },
    });
    const dir = testdir({ 'a.yaml': [phase('season')] });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    write(dir, [phase('season-2026')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.stdout).toContain('+ StandingPhase/season-2026 will be created');
    expect(plan.stdout).toContain(
      'this looks like a rename of StandingPhase/season: add `moved_from: StandingPhase/season`',
    );
    expect(plan.stdout).toMatch(
      /- StandingPhase\/season \(\w+\) will be released: no longer declared; it stays on the platform/,
    );
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
    expect(json.changes.find((c: { address: string }) => c.address === 'Offer/basic')).toMatchObject({
      action: 'release',
      id: stateOf(dir)['Offer/basic'].id,
    });
    const md = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toMatch(/\| ➖ \| `Offer\/basic` \| release \|/);
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(Object.keys(stateOf(dir))).toEqual(['Offer/basic', 'Offer/premium']);
    expect(stateOf(dir)['Offer/basic'].released_at).toEqual(expect.any(String));
    expect(offerCount()).toBe(2);
  });

  it('a block removed from a document is no longer managed, and the plan says so instead of "No changes" alone', async () => {
    emu = await emulator({ video_protection_rulesets: [{ id: 'r1', project_id: 'p', name: 'Geo' }] });
    const ruleset = (spec: object) => ({
      kind: 'VideoProtectionRuleset',
      name: 'geo',
      id: 'r1',
      spec: { name: 'Geo', ...spec },
    });
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
    expect(result.results[0]).toMatchObject({
      outcome: 'applied',
      not_kept: ['name (sent "New", platform has "Old")'],
    });
    expect(result.summary).toMatchObject({ not_kept: 1 });
    expect(run.stderr).toContain('error: Vod/v: not kept: name (sent "New", platform has "Old")');
  });

  it('what the platform kept as written passes: creates and updates alike', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    const dir = testdir({
      'a.yaml': [{ kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } }, premium('premium')],
    });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).results.map((r: { not_kept?: string[] }) => r.not_kept)).toEqual([
      undefined,
      undefined,
    ]);
    expect(
      emu.calls().filter((c) => c.method === 'GET' && /\/(v1|off_\w+)$/.test(c.path)).length,
    ).toBeGreaterThanOrEqual(2);
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
    expect(run.stderr).toContain(
      `belongs to environment default at ${emu.url}, not default at ${other.url}; nothing was read or written`,
    );
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
    expect(plan.stderr).toContain(
      `Offer/premium: the state knows it as Offer ${id}, but the platform has no such Offer. If it was deleted, pass --recreate-missing`,
    );
    const again = await runCli(['apply', ...against(emu.url, dir), '--yes', '--recreate-missing'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(offerCount()).toBe(1);
  });
});

describe('order the platform rules need', () => {
  it('moving default: true to another configuration unsets the old default first, in one apply', async () => {
    const cfg = (id: string, name: string, isDefault: boolean) => ({
      id,
      project_id: 'p',
      name,
      type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS',
      default: isDefault,
    });
    emu = await emulator({ configurations: [cfg('cfg_old', 'old', true), cfg('cfg_new', 'new', false)] });
    const doc = (name: string, isDefault: boolean) => ({
      kind: 'StreamingConfiguration',
      name,
      spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault },
    });
    // By address, StreamingConfiguration/new would come first.
    const dir = testdir({ 'a.yaml': [doc('new', true), doc('old', false)] });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json', '--concurrency', '1'], {
      cwd: dir,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(emu.writes().map((c) => c.path)).toEqual([
      '/streaming/configurations/v1/cfg_old',
      '/streaming/configurations/v1/cfg_new',
    ]);
    expect(emu.store.collections.get('configurations')!.get('cfg_new')!.default).toBe(true);
  });
});

describe('order the platform rules need, when the first step fails', () => {
  it('the new default is skipped, not sent, when unsetting the old one fails', async () => {
    const cfg = (id: string, name: string, isDefault: boolean) => ({
      id,
      project_id: 'p',
      name,
      type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS',
      default: isDefault,
    });
    emu = await emulator({ configurations: [cfg('cfg_old', 'old', true), cfg('cfg_new', 'new', false)] });
    proxy = await faultyProxy(emu.url, (req) =>
      req.method === 'PATCH' && req.url?.endsWith('/cfg_old') ? { status: 400, forward: false } : undefined,
    );
    const doc = (name: string, isDefault: boolean) => ({
      kind: 'StreamingConfiguration',
      name,
      spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault },
    });
    const dir = testdir({ 'a.yaml': [doc('new', true), doc('old', false)] });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const results = JSON.parse(run.stdout).results;
    expect(results.find((r: { address: string }) => r.address === 'StreamingConfiguration/new')).toMatchObject({
      outcome: 'skipped',
    });
    expect(emu.writes().map((c) => c.path)).toEqual([]);
  });
});

describe('mistakes found by the plan, not the apply', () => {
  it('a duplicate_from that does not exist is a plan error located at the document', async () => {
    emu = await emulator({ events: [{ id: 'evt_template', project_id: 'p', title: 'T' }] });
    const dir = testdir({
      'a.yaml': { kind: 'Event', name: 'final', duplicate_from: 'evt_tempalte', spec: { title: 'Final' } },
    });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /Event\/final: a\.yaml:3:\d+: duplicate_from evt_tempalte: no such Event on the platform/,
    );
    expect(emu.stats.writes).toBe(0);
  });
});
