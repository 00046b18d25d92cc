// What the engine sends to the platform and when, as a user sees it: a policy with the etag it read, nothing before a
// confirmed apply, and reads in as few round trips as the documents allow. The diffs themselves are in engine.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, jsonPlan, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const plan = jsonPlan(() => emu!.url);

describe('policies', () => {
  it('a policy never set is an empty policy: the plan PUTs it, without etag', async () => {
    emu = await emulator();
    const dir = testdir({
      'a.yaml': {
        kind: 'Policy',
        name: 'p',
        spec: { resource_key: 'p1/p1/project', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } },
      },
    });
    const { plan: p } = await plan(dir);
    expect(p.changes[0]).toMatchObject({
      action: 'update',
      update_mask: ['policy'],
      request: { method: 'PUT', path: '/iam/auth/v1/policies/p1/p1/project' },
    });
    expect(p.changes[0].request.body.etag).toBeUndefined();
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect((await plan(dir)).plan.summary.noop).toBe(1);
  });

  it('the PUT sends the etag it read, so a concurrent change fails the write instead of being lost', async () => {
    emu = await emulator({ policies: [{ resource_key: 'o/organization', policy: { bindings: [] }, etag: 'v1' }] });
    const dir = testdir({
      'a.yaml': {
        kind: 'Policy',
        name: 'p',
        spec: { resource_key: 'o/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } },
      },
    });
    await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')).changes[0].request.body.etag).toBe('v1');
    // Someone changes the policy between our read and our write: simulated by the store itself.
    const policies = emu.store.collections.get('policies')!;
    policies.set('o/organization', { ...policies.get('o/organization')!, etag: 'v2' });
    const { applyPlan } = await import('../../src/apply/apply.js');
    const { Client, defaultClientOptions } = await import('../../src/remote/client.js');
    const { State } = await import('../../src/state/state.js');
    const client = new Client({ ...defaultClientOptions, baseUrl: emu.url, token: 'dev-token' });
    const result = await applyPlan(
      JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')),
      client,
      State.load(join(dir, 's.json')),
      { concurrency: 1 },
    );
    await client.close();
    expect(result.results[0]).toMatchObject({
      outcome: 'failed',
      error: expect.stringMatching(/409 aborted: etag mismatch/),
    });
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
    const dir = testdir({
      'a.yaml': [
        ...offers.map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: o.name } })),
        { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'V' } },
      ],
    });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.stdout).toContain('No changes. 31 resources up to date.\n(4 read requests)');
    expect(emu.stats.reads).toBe(4);
  });

  it('documents a list cannot answer (gone from it) are still read one by one, after the list', async () => {
    const offers = Array.from({ length: 30 }, (_, i) => ({ id: `o${i}`, project_id: 'p', name: `Offer ${i}` }));
    emu = await emulator({ offers: offers.slice(0, 28) }, { maxPageSize: 10 });
    const dir = testdir({
      'a.yaml': offers.map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: o.name } })),
    });
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
    const dir = testdir({
      'a.yaml': offers
        .slice(0, 20)
        .map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: o.name } })),
    });
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.stdout).toContain('No changes. 20 resources up to date.\n(4 read requests)');
    expect(emu.stats.reads).toBe(4);
  });

  it('a list longer than the documents it would answer is given up for GETs once it costs as much', async () => {
    // The 20 declared offers are the last of 400 (80 pages of 5): after 20 pages that found none of them, the 20
    // are read one by one, 40 requests instead of 80.
    const offers = Array.from({ length: 400 }, (_, i) => ({ id: `o${i}`, project_id: 'p', name: `Offer ${i}` }));
    emu = await emulator({ offers }, { maxPageSize: 5 });
    const dir = testdir({
      'a.yaml': offers
        .slice(380)
        .map((o) => ({ kind: 'Offer', name: o.id, id: o.id, spec: { project_id: 'p', name: `${o.name} renamed` } })),
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary).toEqual({
      create: 0,
      update: 20,
      replace: 0,
      move: 0,
      release: 0,
      restore: 0,
      noop: 0,
    });
    expect(emu.stats.reads).toBe(20 + 20);
  });

  it('a few documents are read one by one', async () => {
    emu = await emulator({
      offers: [
        { id: 'o1', project_id: 'p', name: 'A' },
        { id: 'o2', project_id: 'p', name: 'B' },
      ],
    });
    const dir = testdir({
      'a.yaml': [
        { kind: 'Offer', name: 'a', id: 'o1', spec: { name: 'A' } },
        { kind: 'Offer', name: 'b', id: 'o2', spec: { name: 'B' } },
      ],
    });
    await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(emu.stats.reads).toBe(2);
  });
});
