// The engine's promises, as a user sees them: meaning-based diffs, references, adoption, confirmation, exit codes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const plan = async (dir: string, ...extra: string[]) => {
  const run = await runCli(['plan', ...against(emu!.url, dir), '--json', ...extra], { cwd: dir });
  expect(run.stderr).toBe('');
  return { ...run, plan: JSON.parse(run.stdout) };
};

describe('the live API style never shows as a change', () => {
  it('zero values, int64 strings, +02:00 vs Z timestamps, unordered sets', async () => {
    emu = await emulator({
      events: [{ id: 'e1', project_id: 'p', title: 'Final', start_time: '2026-06-01T18:00:00Z', physical_location: { city: 'A' } }],
      offers: [{ id: 'o1', project_id: 'p', priority: '10', concurrency_limit: 2, offer_prices: [{ price: { currency_code: 'EUR', units: '9', nanos: 5 } }] }],
      policies: [{ resource_key: 'o/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a', 'b'] }, { role_id: 'viewer', all_organization_accounts: true }] } }],
    });
    const dir = testdir({
      'a.yaml': [
        { kind: 'Event', name: 'e', id: 'e1', spec: { title: 'Final', description: '', status: 'EVENT_STATUS_UNSPECIFIED', start_time: '2026-06-01T20:00:00.000+02:00', video_ids: [], fields: {}, physical_location: { city: 'A', venue: '' } } },
        { kind: 'Offer', name: 'o', id: 'o1', spec: { priority: 10, concurrency_limit: '2', applies_to_all: false, target: null, offer_prices: [{ price: { currency_code: 'EUR', units: 9, nanos: 5 }, msrp_price: null }] } },
        { kind: 'Policy', name: 'p', spec: { resource_key: 'o/organization', policy: { bindings: [{ role_id: 'viewer', all_organization_accounts: true, account_ids: [] }, { role_id: 'owner', account_ids: ['b', 'a'] }] } } },
      ],
    });
    const { plan: p } = await plan(dir);
    expect(p.changes.map((c: { action: string }) => c.action)).toEqual(['noop', 'noop', 'noop']);
    expect(p.summary).toEqual({ create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 3 });
  });
});

describe('plan output', () => {
  it('text: before → after per masked path and a summary; --detailed-exitcode 2; --out saves the JSON', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
    const run = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode', '--out', 'saved.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('  ~ Vod/v (v1) will be updated\n      ~ name: "Old" → "New"\n      PATCH /streaming/vods/v1/v1 update_mask=name');
    expect(run.stdout).toContain('Plan: 0 to create, 1 to update, 0 unchanged.');
    const saved = JSON.parse(readFileSync(join(dir, 'saved.json'), 'utf8'));
    expect(saved).toMatchObject({ format_version: 1, changes: [{ address: 'Vod/v', kind: 'Vod', action: 'update', id: 'v1', update_mask: ['name'], request: { method: 'PATCH', path: '/streaming/vods/v1/v1', body: { vod_id: 'v1', vod: { name: 'New' }, update_mask: 'name' } }, diff: [{ path: 'name', before: 'Old', after: 'New' }] }] });
    expect(emu.stats.writes).toBe(0);
  });

  it('a field set to null is cleared: its path in the mask, left out of the body', async () => {
    emu = await emulator({ events: [{ id: 'e1', project_id: 'p', title: 'T', description: 'D' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Event', name: 'e', id: 'e1', spec: { description: null } } });
    const { plan: p } = await plan(dir);
    expect(p.changes[0].request.body).toEqual({ event_id: 'e1', event_update: {}, update_mask: 'description' });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect((await call(emu, 'GET', '/cms/events/v1/e1')).body.event).toMatchObject({ title: 'T', description: '' });
  });
});

describe('references', () => {
  it('a created target fills in its dependents: plan shows the reference text, apply the id', async () => {
    emu = await emulator({ events: [{ id: 'tpl', project_id: 'p', title: 'Template' }] });
    const dir = testdir({
      'a.yaml': [
        { kind: 'Offer', name: 'pass', spec: { project_id: 'p', name: 'Pass', target: { event_ids: ['${Event/final.id}'] } } },
        { kind: 'Event', name: 'final', duplicate_from: 'tpl', spec: { title: 'The final' } },
        { kind: 'Policy', name: 'final-access', spec: { resource_key: '${Event/final.id}/p/event', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } } },
      ],
    });
    const { plan: p } = await plan(dir);
    expect(p.changes.map((c: { address: string }) => c.address)).toEqual(['Event/final', 'Offer/pass', 'Policy/final-access']);
    expect(p.changes[1]).toMatchObject({ action: 'create', depends_on: ['Event/final'], request: { body: { target: { event_ids: ['${Event/final.id}'] } } } });
    expect(p.changes[2].request.path).toBe('/iam/auth/v1/policies/${Event/final.id}/p/event');
    const text = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(text.stdout).toContain('+ target.event_ids: ["${Event/final.id}"] (Event/final.id known after apply)');

    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir });
    expect(apply.code).toBe(0);
    const eventId = JSON.parse(apply.stdout).results.find((r: { address: string }) => r.address === 'Event/final').id;
    const offers = (await call(emu, 'GET', '/monetization/offers/v1')).body.offers;
    expect(offers[0].target.event_ids).toEqual([eventId]);
    expect((await call(emu, 'GET', `/iam/auth/v1/policies/${eventId}/p/event`)).status).toBe(200);
    const state = JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
    expect(state.resources['Event/final']).toEqual({ kind: 'Event', id: eventId, fields: { title: 'The final' } });
    expect(state.resources['Offer/pass'].fields).toEqual({ project_id: 'p', name: 'Pass', 'target.event_ids': [eventId] });
    expect((await plan(dir)).plan.summary).toEqual({ create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 3 });
  });
});

describe('streaming configurations', () => {
  it('without state, the live one with the same project, type and name is adopted through every page', async () => {
    const configs = Array.from({ length: 23 }, (_, i) => ({ id: `c${i}`, project_id: 'p', name: `n${i}`, type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS' }));
    emu = await emulator({ configurations: configs }, { maxPageSize: 5 });
    const dir = testdir({ 'a.yaml': { kind: 'StreamingConfiguration', name: 'last', spec: { project_id: 'p', name: 'n22', type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS', description: 'd' } } });
    const { plan: p } = await plan(dir);
    expect(p.changes[0]).toMatchObject({ action: 'update', id: 'c22', update_mask: ['description'] });
    expect(emu.stats.reads).toBe(5);
  });

  it('a plan that would make a second live default is an error naming the other one', async () => {
    emu = await emulator({ configurations: [{ id: 'cur', project_id: 'p', name: 'Current', type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING', default: true }] });
    const dir = testdir({ 'a.yaml': { kind: 'StreamingConfiguration', name: 'new', spec: { project_id: 'p', name: 'New', type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING', default: true } } });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/StreamingConfiguration\/new: would make a second default .* cur \(Current\) is already the default/);
  });
});

describe('policies', () => {
  it('a policy never set is an empty policy: the plan PUTs it, without etag', async () => {
    emu = await emulator();
    const dir = testdir({ 'a.yaml': { kind: 'Policy', name: 'p', spec: { resource_key: 'p1/p1/project', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } } } });
    const { plan: p } = await plan(dir);
    expect(p.changes[0]).toMatchObject({ action: 'update', update_mask: ['policy'], request: { method: 'PUT', path: '/iam/auth/v1/policies/p1/p1/project' } });
    expect(p.changes[0].request.body.etag).toBeUndefined();
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect((await plan(dir)).plan.summary.noop).toBe(1);
  });

  it('the PUT sends the etag it read, so a concurrent change fails the write instead of being lost', async () => {
    emu = await emulator({ policies: [{ resource_key: 'o/organization', policy: { bindings: [] }, etag: 'v1' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Policy', name: 'p', spec: { resource_key: 'o/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } } } });
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')).changes[0].request.body.etag).toBe('v1');
    // Someone changes the policy between our read and our write: simulated by the store itself.
    const policies = emu.store.collections.get('policies')!;
    policies.set('o/organization', { ...policies.get('o/organization')!, etag: 'v2' });
    const { applyPlan } = await import('../../src/apply/apply.js');
    const { Client, defaultClientOptions } = await import('../../src/remote/client.js');
    const { State } = await import('../../src/state/state.js');
    const client = new Client({ ...defaultClientOptions, baseUrl: emu.url, token: 'dev-token' });
    const result = await applyPlan(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')), client, State.load(join(dir, 's.json')), { concurrency: 1 });
    await client.close();
    expect(result.results[0]).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/409 aborted: etag mismatch/) });
    expect(emu.store.collections.get('policies')!.get('o/organization')!.policy).toEqual({ bindings: [] });
  });
});

describe('apply confirmation', () => {
  it('without --yes and without a terminal: exit 1, says to pass --yes, sends nothing', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
    const run = await runCli(['apply', ...against(emu.url, dir)], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringContaining('pass --yes') });
    expect(emu.stats.reads + emu.stats.writes).toBe(0);
  });

  it('on a terminal, anything but "yes" cancels; "yes" applies', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
    const no = await runCli(['apply', ...against(emu.url, dir)], { cwd: dir, tty: true, answer: 'y' });
    expect(no).toMatchObject({ code: 1, stderr: expect.stringContaining('Apply cancelled; nothing was sent.') });
    expect(emu.stats.writes).toBe(0);
    const yes = await runCli(['apply', ...against(emu.url, dir)], { cwd: dir, tty: true, answer: 'yes' });
    expect(yes.code).toBe(0);
    expect(emu.stats.writes).toBe(1);
  });
});

describe('fewer round trips', () => {
  it('many documents of a listable kind in one project are read through the list, in pages', async () => {
    const offers = Array.from({ length: 30 }, (_, i) => ({ id: `o${i}`, project_id: 'p', name: `Offer ${i}` }));
    emu = await emulator({ offers, vods: [{ id: 'v1', project_id: 'p', name: 'V' }] }, { maxPageSize: 10 });
    const dir = testdir({ 'a.yaml': [...offers.map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: o.name } })), { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'V' } }] });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.stdout).toContain('No changes. 31 resources up to date.\n(4 read requests)');
    expect(emu.stats.reads).toBe(4);
  });

  it('documents a list cannot answer (gone from it) are still read one by one, after the list', async () => {
    const offers = Array.from({ length: 30 }, (_, i) => ({ id: `o${i}`, project_id: 'p', name: `Offer ${i}` }));
    emu = await emulator({ offers: offers.slice(0, 28) }, { maxPageSize: 10 });
    const dir = testdir({ 'a.yaml': offers.map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: o.name } })) });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').sort()).toEqual([
      'Offer/o28: GET /monetization/offers/v1/o28: 404 not_found: Offer o28 not found',
      'Offer/o29: GET /monetization/offers/v1/o29: 404 not_found: Offer o29 not found',
    ]);
    expect(emu.stats.reads).toBe(3 + 2);
  });

  it('a list stops as soon as it has found every document', async () => {
    // 20 offers declared, the first 20 of 200 live ones: 4 pages of 5 answer them all; the other 36 pages are not read.
    const offers = Array.from({ length: 200 }, (_, i) => ({ id: `o${i}`, project_id: 'p', name: `Offer ${i}` }));
    emu = await emulator({ offers }, { maxPageSize: 5 });
    const dir = testdir({ 'a.yaml': offers.slice(0, 20).map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: o.name } })) });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.stdout).toContain('No changes. 20 resources up to date.\n(4 read requests)');
    expect(emu.stats.reads).toBe(4);
  });

  it('a list longer than the documents it would answer is given up for GETs once it costs as much', async () => {
    // The 20 declared offers are the last of 400 (80 pages of 5): after 20 pages that found none of them, the 20
    // are read one by one, 40 requests instead of 80.
    const offers = Array.from({ length: 400 }, (_, i) => ({ id: `o${i}`, project_id: 'p', name: `Offer ${i}` }));
    emu = await emulator({ offers }, { maxPageSize: 5 });
    const dir = testdir({ 'a.yaml': offers.slice(380).map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: `${o.name} renamed` } })) });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary).toEqual({ create: 0, update: 20, replace: 0, move: 0, release: 0, restore: 0, noop: 0 });
    expect(emu.stats.reads).toBe(20 + 20);
  });

  it('a few documents are read one by one', async () => {
    emu = await emulator({ offers: [{ id: 'o1', project_id: 'p', name: 'A' }, { id: 'o2', project_id: 'p', name: 'B' }] });
    const dir = testdir({ 'a.yaml': [{ kind: 'Offer', name: 'a', id: 'o1', spec: { name: 'A' } }, { kind: 'Offer', name: 'b', id: 'o2', spec: { name: 'B' } }] });
    await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(emu.stats.reads).toBe(2);
  });
});
