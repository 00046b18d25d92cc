// The engine's promises, as a user sees them: meaning-based diffs, references, adoption, exit codes. What it
// sends and when (policies with their etag, confirmation before any write, few round trips) is in engine-calls.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, jsonPlan, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const plan = jsonPlan(() => emu!.url);

describe('the live API style never shows as a change', () => {
  it('zero values, int64 strings, +02:00 vs Z timestamps, unordered sets', async () => {
    emu = await emulator({
      events: [
        {
          id: 'e1',
          project_id: 'p',
          title: 'Final',
          start_time: '2026-06-01T18:00:00Z',
          physical_location: { city: 'A' },
        },
      ],
      offers: [
        {
          id: 'o1',
          project_id: 'p',
          priority: '10',
          concurrency_limit: 2,
          offer_prices: [{ price: { currency_code: 'EUR', units: '9', nanos: 5 } }],
        },
      ],
      policies: [
        {
          resource_key: 'o/organization',
          policy: {
            bindings: [
              { role_id: 'owner', account_ids: ['a', 'b'] },
              { role_id: 'viewer', all_organization_accounts: true },
            ],
          },
        },
      ],
    });
    const dir = testdir({
      'a.yaml': [
        {
          kind: 'Event',
          name: 'e',
          id: 'e1',
          spec: {
            title: 'Final',
            description: '',
            status: 'EVENT_STATUS_UNSPECIFIED',
            start_time: '2026-06-01T20:00:00.000+02:00',
            video_ids: [],
            fields: {},
            physical_location: { city: 'A', venue: '' },
          },
        },
        {
          kind: 'Offer',
          name: 'o',
          id: 'o1',
          spec: {
            priority: 10,
            concurrency_limit: '2',
            applies_to_all: false,
            target: null,
            offer_prices: [{ price: { currency_code: 'EUR', units: 9, nanos: 5 }, msrp_price: null }],
          },
        },
        {
          kind: 'Policy',
          name: 'p',
          spec: {
            resource_key: 'o/organization',
            policy: {
              bindings: [
                { role_id: 'viewer', all_organization_accounts: true, account_ids: [] },
                { role_id: 'owner', account_ids: ['b', 'a'] },
              ],
            },
          },
        },
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
    const run = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode', '--out', 'saved.json'], {
      cwd: dir,
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      '  ~ Vod/v (v1) will be updated\n      ~ name: "Old" → "New"\n      PATCH /streaming/vods/v1/v1 update_mask=name',
    );
    expect(run.stdout).toContain('Plan: 0 to create, 1 to update, 0 unchanged.');
    const saved = JSON.parse(readFileSync(join(dir, 'saved.json'), 'utf8'));
    expect(saved).toMatchObject({
      format_version: 1,
      changes: [
        {
          address: 'Vod/v',
          kind: 'Vod',
          action: 'update',
          id: 'v1',
          update_mask: ['name'],
          request: {
            method: 'PATCH',
            path: '/streaming/vods/v1/v1',
            body: { vod_id: 'v1', vod: { name: 'New' }, update_mask: 'name' },
          },
          diff: [{ path: 'name', before: 'Old', after: 'New' }],
        },
      ],
    });
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
        {
          kind: 'Offer',
          name: 'pass',
          spec: { project_id: 'p', name: 'Pass', target: { event_ids: ['${Event/final.id}'] } },
        },
        { kind: 'Event', name: 'final', duplicate_from: 'tpl', spec: { title: 'The final' } },
        {
          kind: 'Policy',
          name: 'final-access',
          spec: {
            resource_key: '${Event/final.id}/p/event',
            policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] },
          },
        },
      ],
    });
    const { plan: p } = await plan(dir);
    expect(p.changes.map((c: { address: string }) => c.address)).toEqual([
      'Event/final',
      'Offer/pass',
      'Policy/final-access',
    ]);
    expect(p.changes[1]).toMatchObject({
      action: 'create',
      depends_on: ['Event/final'],
      request: { body: { target: { event_ids: ['${Event/final.id}'] } } },
    });
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
    expect(state.resources['Offer/pass'].fields).toEqual({
      project_id: 'p',
      name: 'Pass',
      'target.event_ids': [eventId],
    });
    expect((await plan(dir)).plan.summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      move: 0,
      release: 0,
      restore: 0,
      noop: 3,
    });
  });
});

describe('streaming configurations', () => {
  it('without state, the live one with the same project, type and name is adopted through every page', async () => {
    const configs = Array.from({ length: 23 }, (_, i) => ({
      id: `c${i}`,
      project_id: 'p',
      name: `n${i}`,
      type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS',
    }));
    emu = await emulator({ configurations: configs }, { maxPageSize: 5 });
    const dir = testdir({
      'a.yaml': {
        kind: 'StreamingConfiguration',
        name: 'last',
        spec: { project_id: 'p', name: 'n22', type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS', description: 'd' },
      },
    });
    const { plan: p } = await plan(dir);
    expect(p.changes[0]).toMatchObject({ action: 'update', id: 'c22', update_mask: ['description'] });
    expect(emu.stats.reads).toBe(5);
  });

  it('a plan that would make a second live default is an error naming the other one', async () => {
    emu = await emulator({
      configurations: [
        { id: 'cur', project_id: 'p', name: 'Current', type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING', default: true },
      ],
    });
    const dir = testdir({
      'a.yaml': {
        kind: 'StreamingConfiguration',
        name: 'new',
        spec: { project_id: 'p', name: 'New', type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING', default: true },
      },
    });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /StreamingConfiguration\/new: would make a second default .* cur \(Current\) is already the default/,
    );
  });
});
