// Exactly-once writes whatever fails: lost answers with failing lookups, twins, pre-existing look-alikes, dead ids
// in the state, and writes that may have taken effect behind a later refusal.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';
import { useVirtualClock } from '../helpers/clock.js';

// Retry waits, Retry-After pauses and rate buckets on the CLI's and the emulator's shared virtual clock.
useVirtualClock();

let emu: Emulator | undefined;
let proxy: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await proxy?.close();
  await emu?.close();
  emu = undefined;
  proxy = undefined;
});

const offer = (name: string, spec: object = {}) => ({
  kind: 'Offer',
  name,
  spec: { project_id: 'p', name: 'Promo', priority: 3, ...spec },
});
const offers = async () =>
  (await call(emu!, 'GET', '/monetization/offers/v1?project_id=p')).body.offers as Array<{ id: string; name: string }>;
const stateOf = (dir: string) => JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
const isOfferList = (method?: string, url?: string) =>
  method === 'GET' && /^\/monetization\/offers\/v1\?/.test(url ?? '');
const applyJson = async (url: string, dir: string, extra: string[] = []) => {
  const run = await runCli(['apply', ...against(url, dir), '--yes', '--json', ...extra], { cwd: dir });
  return { ...run, result: run.stdout ? JSON.parse(run.stdout) : undefined };
};

describe('a create whose answer was lost', () => {
  it('is never sent again when the lookup fails: outcome unknown, exit 1, the marker stays, the next plan adopts it', async () => {
    emu = await emulator({});
    let lists = 0;
    let faulty = true;
    // The plan's look before creating and the list read before the create answer; the create's answer is lost;
    // every lookup after it fails with 503.
    proxy = await faultyProxy(emu.url, (req) => {
      if (!faulty) return undefined;
      if (req.method === 'POST') return 'drop_after';
      if (isOfferList(req.method, req.url) && lists++ > 1) return { status: 503, forward: false };
      return undefined;
    });
    const dir = testdir({ 'a.yaml': offer('promo') });
    const { code, result } = await applyJson(proxy.url, dir);
    expect(code).toBe(1);
    expect(result.results[0]).toMatchObject({
      address: 'Offer/promo',
      outcome: 'unknown',
      error: expect.stringMatching(/may have taken effect, and looking it up failed too/),
    });
    expect(result.summary).toMatchObject({ applied: 0, failed: 0, unknown: 1 });
    expect(emu.writes().filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(await offers()).toHaveLength(1);
    expect(stateOf(dir).resources['Offer/promo']).toMatchObject({ pending_since: expect.any(String) });
    faulty = false;
    const next = await runCli(['plan', ...against(proxy.url, dir), '--json'], { cwd: dir });
    expect(JSON.parse(next.stdout).changes[0]).toMatchObject({ action: 'noop', id: (await offers())[0].id });
  });

  it('refused at a later attempt, after an earlier one got no clear answer: unknown, and the marker stays', async () => {
    emu = await emulator({});
    let posts = 0;
    // The first create never arrives (but the client cannot know); the lookup finds nothing; the second is refused.
    proxy = await faultyProxy(emu.url, (req) =>
      req.method !== 'POST' ? undefined : posts++ === 0 ? 'drop_before' : { status: 400, forward: false },
    );
    const dir = testdir({ 'a.yaml': offer('promo') });
    const { code, result } = await applyJson(proxy.url, dir);
    expect(code).toBe(1);
    expect(result.results[0]).toMatchObject({
      outcome: 'unknown',
      error: expect.stringMatching(/an earlier attempt got no clear answer and may still take effect/),
    });
    expect(stateOf(dir).resources['Offer/promo']).toMatchObject({ pending_since: expect.any(String) });
  });

  it('a create refused outright puts back the entry it was to replace (a project changed)', async () => {
    emu = await emulator({});
    let faulty = false;
    proxy = await faultyProxy(emu.url, (req) =>
      faulty && req.method === 'POST' ? { status: 400, forward: false } : undefined,
    );
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'promo', spec: { project_id: '${var.p}', name: 'Promo' } },
    });
    expect((await applyJson(proxy.url, dir, ['--var', 'p=p1'])).code).toBe(0);
    const entry = stateOf(dir).resources['Offer/promo'];
    faulty = true;
    const { code, result } = await applyJson(proxy.url, dir, ['--var', 'p=p2']);
    expect(code).toBe(1);
    expect(result.results[0]).toMatchObject({ action: 'replace', outcome: 'failed' });
    expect(stateOf(dir).resources['Offer/promo']).toEqual(entry);
  });

  it('is sent again only after a lookup proved it absent', async () => {
    emu = await emulator({});
    let posts = 0;
    // The first create is dropped before it reaches the platform; the lookup finds nothing; the second goes through.
    proxy = await faultyProxy(emu.url, (req) => (req.method === 'POST' && posts++ === 0 ? 'drop_before' : undefined));
    const dir = testdir({ 'a.yaml': offer('promo') });
    const { code, result } = await applyJson(proxy.url, dir);
    expect(code).toBe(0);
    expect(result.results[0]).toMatchObject({ outcome: 'applied' });
    expect(await offers()).toHaveLength(1);
  });

  it('never adopts a look-alike that existed before it was sent (kinds without create_time)', async () => {
    emu = await emulator({ offers: [{ id: 'off_by_hand', project_id: 'p', name: 'Promo', priority: 3 }] });
    let posts = 0;
    // The first create never reaches the platform; the only match then is the one made by hand, which is not ours.
    proxy = await faultyProxy(emu.url, (req) => (req.method === 'POST' && posts++ === 0 ? 'drop_before' : undefined));
    // A second Promo on purpose: without allow_duplicate the plan would stop at the one made by hand.
    const dir = testdir({ 'a.yaml': { ...offer('promo'), allow_duplicate: true } });
    const { result } = await applyJson(proxy.url, dir);
    const made = (await offers()).filter((o) => o.id !== 'off_by_hand');
    expect(made).toHaveLength(1);
    expect(result.results[0]).toMatchObject({ outcome: 'applied', id: made[0].id });
    expect(stateOf(dir).resources['Offer/promo'].id).toBe(made[0].id);
  });

  it('after a crash, the pending marker names what existed before, and the plan adopts only the new one', async () => {
    // Listed last, the hand-made one looks the newest.
    emu = await emulator({
      offers: [
        { id: 'off_made', project_id: 'p', name: 'Promo', priority: 3 },
        { id: 'off_by_hand', project_id: 'p', name: 'Promo', priority: 3 },
      ],
    });
    const dir = testdir({ 'a.yaml': offer('promo') });
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({
        format_version: 1,
        resources: {
          'Offer/promo': { kind: 'Offer', pending_since: '2026-01-01T00:00:00Z', existing: ['off_by_hand'] },
        },
      }),
    );
    const plan = await runCli(['plan', ...against(emu.url, dir), '--state', 'state.json', '--json'], { cwd: dir });
    expect(JSON.parse(plan.stdout).changes[0]).toMatchObject({ action: 'noop', id: 'off_made' });
  });
});

describe('twins: documents with equal managed fields', () => {
  it('each is bound to a resource of its own when every create answer is lost', async () => {
    emu = await emulator({});
    proxy = await faultyProxy(emu.url, (req) => (req.method === 'POST' ? 'drop_after' : undefined));
    const dir = testdir({ 'a.yaml': [offer('twin-a'), offer('twin-b'), offer('twin-c')] });
    const { code, result } = await applyJson(proxy.url, dir);
    expect(code).toBe(0);
    const ids = result.results.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(3);
    expect((await offers()).map((o) => o.id).sort()).toEqual([...ids].sort());
  });

  it('a twin whose answer was lost never takes the resource of a twin whose answer is still on its way', async () => {
    emu = await emulator({});
    let posts = 0;
    // Both creates reach the platform; the first answer is lost, the second arrives only after the first one's
    // lookup would have read the list (where the second twin's resource is the newest match).
    proxy = await faultyProxy(emu.url, (req) =>
      req.method !== 'POST' ? undefined : posts++ === 0 ? 'drop_after' : { delayMs: 400 },
    );
    const dir = testdir({ 'a.yaml': [offer('twin-a'), offer('twin-b')] });
    const { code, result } = await applyJson(proxy.url, dir);
    expect(code).toBe(0);
    const ids = result.results.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(2);
    expect((await offers()).map((o) => o.id).sort()).toEqual([...ids].sort());
  });

  it('after a crash, pending twins are bound to distinct resources by the next plan', async () => {
    emu = await emulator({
      offers: [
        { id: 'off_1', project_id: 'p', name: 'Promo', priority: 3 },
        { id: 'off_2', project_id: 'p', name: 'Promo', priority: 3 },
      ],
    });
    const dir = testdir({ 'a.yaml': [offer('twin-a'), offer('twin-b')] });
    const pending = { kind: 'Offer', pending_since: '2026-01-01T00:00:00Z' };
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({ format_version: 1, resources: { 'Offer/twin-a': pending, 'Offer/twin-b': pending } }),
    );
    const plan = JSON.parse(
      (await runCli(['plan', ...against(emu.url, dir), '--state', 'state.json', '--json'], { cwd: dir })).stdout,
    );
    expect(plan.changes.map((c: { action: string }) => c.action)).toEqual(['noop', 'noop']);
    expect(plan.changes.map((c: { id: string }) => c.id).sort()).toEqual(['off_1', 'off_2']);
  });
});

describe('a dead id in the state', () => {
  it('a dependent is skipped, never written with the dead id, when the re-create fails', async () => {
    emu = await emulator({});
    proxy = await faultyProxy(emu.url, (req) =>
      req.method === 'POST' && req.url === '/monetization/offers/v1' ? { status: 400, forward: false } : undefined,
    );
    const dir = testdir({
      'a.yaml': [
        offer('base'),
        {
          kind: 'Policy',
          name: 'base-access',
          spec: {
            resource_key: 'p/${Offer/base.id}/offer',
            policy: { bindings: [{ role_id: 'viewer', account_ids: ['a'] }] },
          },
        },
      ],
    });
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({ format_version: 1, resources: { 'Offer/base': { kind: 'Offer', id: 'off_dead' } } }),
    );
    const run = await runCli(
      ['apply', ...against(proxy.url, dir), '--state', 'state.json', '--yes', '--json', '--recreate-missing'],
      { cwd: dir },
    );
    const result = JSON.parse(run.stdout);
    expect(result.results.find((r: { address: string }) => r.address === 'Policy/base-access')).toMatchObject({
      outcome: 'skipped',
    });
    expect(emu.calls().some((c) => c.path.includes('off_dead') && c.method !== 'GET')).toBe(false);
  });
});

describe('an update that may have taken effect behind a later refusal', () => {
  it.each([
    ['took effect: the read-back says applied', true, 'applied'],
    ['did not: the read-back says failed', false, 'failed'],
  ])('503 then 429s: %s', async (_, forwardFirst, outcome) => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
    let patches = 0;
    proxy = await faultyProxy(emu.url, (req) => {
      if (req.method !== 'PATCH') return undefined;
      return patches++ === 0 ? { status: 503, forward: forwardFirst } : { status: 429, forward: false };
    });
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes', '--json', '--retries', '2'], { cwd: dir });
    expect(JSON.parse(run.stdout).results[0]).toMatchObject({ outcome });
    expect((await call(emu, 'GET', '/streaming/vods/v1/v1')).body.vod.name).toBe(forwardFirst ? 'New' : 'Old');
  });
});
