// Every kind, as a user runs it: plan shows the exact request and mask, apply makes it so, and a second plan is
// empty. Real CLI, real emulator over loopback.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

interface Row {
  kind: string;
  seed: Record<string, unknown[]>;
  doc: object;
  method: string;
  path: string;
  mask: string[];
  /** read back after apply: [path to GET, wrapper key or '', field, expected] */
  check: [string, string, string, unknown];
  /** fields the document does not manage, that must survive */
  keeps: Record<string, unknown>;
}

// prettier-ignore
const rows: Row[] = [
  {
    kind: 'Policy',
    seed: { policies: [{ resource_key: 'p1/p1/project', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } }] },
    doc: { kind: 'Policy', name: 'p', spec: { resource_key: 'p1/p1/project', policy: { bindings: [{ role_id: 'owner', account_ids: ['b', 'a'] }] } } },
    method: 'PUT', path: '/iam/auth/v1/policies/p1/p1/project', mask: ['policy'],
    check: ['/iam/auth/v1/policies/p1/p1/project', '', 'policy', { bindings: [{ role_id: 'owner', account_ids: ['b', 'a'], all_organization_accounts: false }] }],
    keeps: {}, // a policy is written whole: nothing of it is left unmanaged
  },
  {
    kind: 'ContentType',
    seed: { content_types: [{ id: 'ct1', project_id: 'p1', base_type: 'BASE_TYPE_EVENT', name: 'Match', visibility: 'VISIBILITY_PUBLISHED' }] },
    doc: { kind: 'ContentType', name: 'ct', id: 'ct1', spec: { project_id: 'p1', base_type: 'BASE_TYPE_EVENT', name: 'Game', settings: { allow_following: true } } },
    method: 'PATCH', path: '/cms/types/v1', mask: ['name', 'settings.allow_following'],
    check: ['/cms/types/v1/ct1?base_type=BASE_TYPE_EVENT&project_id=p1', 'type', 'name', 'Game'],
    keeps: { visibility: 'VISIBILITY_PUBLISHED' },
  },
  {
    kind: 'Offer',
    seed: { offers: [{ id: 'off1', project_id: 'p1', name: 'Basic', priority: 5, billing_partner_offer_id: 'bp1' }] },
    doc: { kind: 'Offer', name: 'o', id: 'off1', spec: { name: 'Premium', priority: '5', offer_prices: [{ price: { currency_code: 'EUR', units: 9, nanos: 990000000 } }] } },
    method: 'PATCH', path: '/monetization/offers/v1/off1', mask: ['name', 'offer_prices'],
    check: ['/monetization/offers/v1/off1', 'offer', 'name', 'Premium'],
    keeps: { billing_partner_offer_id: 'bp1' },
  },
  {
    kind: 'StandingPhase',
    seed: { standing_phases: [{ id: 'sp1', project_id: 'p1', localized_name: { en: 'Season' } }] },
    doc: { kind: 'StandingPhase', name: 's', id: 'sp1', spec: { localized_name: { en: 'Regular season' } } },
    method: 'PATCH', path: '/cms/standing_phases/v1/sp1', mask: ['localized_name'],
    check: ['/cms/standing_phases/v1/sp1', 'standing_phase', 'localized_name', { en: 'Regular season' }],
    keeps: { project_id: 'p1' },
  },
  {
    kind: 'CreativeWork',
    seed: { creative_works: [{ id: 'cw1', project_id: 'p1', title: 'Intro', description: 'keep me' }] },
    doc: { kind: 'CreativeWork', name: 'c', id: 'cw1', spec: { title: 'Intro to the league', release_time: '2026-06-01T20:00:00+02:00' } },
    method: 'PATCH', path: '/cms/creative_works/v1/cw1', mask: ['title', 'release_time'],
    check: ['/cms/creative_works/v1/cw1', 'creative_work', 'release_time', '2026-06-01T18:00:00Z'],
    keeps: { description: 'keep me' },
  },
  {
    kind: 'RtmpIngest',
    seed: { rtmp_ingests: [{ id: 'ing1', project_id: 'p1', name: 'Cam', key: 'sk_secret_1', region: 'REGION_EU' }] },
    doc: { kind: 'RtmpIngest', name: 'i', id: 'ing1', spec: { name: 'Cam', disabled: true } },
    method: 'PATCH', path: '/streaming/rtmp_ingests/v1/ing1', mask: ['disabled'],
    check: ['/streaming/rtmp_ingests/v1/ing1', 'rtmp_ingest', 'disabled', true],
    keeps: { region: 'REGION_EU' },
  },
  {
    kind: 'StreamingConfiguration',
    seed: { configurations: [{ id: 'cfg1', project_id: 'p1', name: 'HD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', description: 'keep' }] },
    doc: { kind: 'StreamingConfiguration', name: 'hd', spec: { project_id: 'p1', name: 'HD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', disabled: true } },
    method: 'PATCH', path: '/streaming/configurations/v1/cfg1', mask: ['disabled'],
    check: ['/streaming/configurations/v1/cfg1', 'configuration', 'disabled', true],
    keeps: { description: 'keep' },
  },
  {
    kind: 'VideoProtectionRuleset',
    seed: { video_protection_rulesets: [{ id: 'vpr1', project_id: 'p1', name: 'Geo', drm: { enabled: true, split_keys: true } }] },
    doc: { kind: 'VideoProtectionRuleset', name: 'v', id: 'vpr1', spec: { drm: { hws_minimum_quality: 2 } } },
    method: 'PATCH', path: '/streaming/video_protection/v1/rulesets/vpr1', mask: ['drm.hws_minimum_quality'],
    check: ['/streaming/video_protection/v1/rulesets/vpr1', 'video_protection_ruleset', 'drm', { enabled: true, hws_minimum_quality: 2, split_keys: true }],
    keeps: { name: 'Geo' },
  },
  {
    kind: 'ActionConfiguration',
    seed: { action_configurations: [{ annotation_type_id: 'at1', configuration: { clip: { d: 1 } }, conditions: [{ confidence_threshold: 0.5 }] }] },
    doc: { kind: 'ActionConfiguration', name: 'a', spec: { annotation_type_id: 'at1', configuration: { clip: { d: 2 }, post: { src: '$clip.url' } } } },
    method: 'POST', path: '/annotations/types/v1/at1/action_configuration', mask: ['configuration'],
    check: ['/annotations/types/v1/at1/action_configuration', '', 'configuration', { clip: { d: 2 }, post: { src: '$clip.url' } }],
    keeps: { conditions: [{ confidence_threshold: 0.5, source_types: null }] },
  },
  {
    kind: 'Vod',
    seed: { vods: [{ id: 'vod1', project_id: 'p1', name: 'Replay', asset_id: 'a1', state: 'STATE_READY' }] },
    doc: { kind: 'Vod', name: 'v', id: 'vod1', spec: { name: 'Full replay' } },
    method: 'PATCH', path: '/streaming/vods/v1/vod1', mask: ['name'],
    check: ['/streaming/vods/v1/vod1', 'vod', 'name', 'Full replay'],
    keeps: { asset_id: 'a1' },
  },
  {
    kind: 'Banner',
    seed: { banners: [{ id: 'b1', project_id: 'p1', name: 'Hero', texts: [{ text: { en: 'Hi' } }] }] },
    doc: { kind: 'Banner', name: 'b', id: 'b1', spec: { visibility: 'VISIBILITY_PUBLISHED', destination_url: { en: 'https://x.test' } } },
    method: 'PATCH', path: '/cms/banners/v1/b1', mask: ['visibility', 'destination_url'],
    check: ['/cms/banners/v1/b1', 'banner', 'destination_url', { en: 'https://x.test' }],
    keeps: { name: 'Hero' },
  },
  {
    kind: 'Event',
    seed: { events: [{ id: 'e1', project_id: 'p1', title: 'Final', physical_location: { venue: 'Arena', city: 'Amsterdam' } }] },
    doc: { kind: 'Event', name: 'e', id: 'e1', spec: { physical_location: { city: 'Rotterdam' } } },
    method: 'PATCH', path: '/cms/events/v1/e1', mask: ['physical_location.city'],
    check: ['/cms/events/v1/e1', 'event', 'physical_location', { venue: 'Arena', city: 'Rotterdam', country_code: '', continent_code: '', coordinates: null }],
    keeps: { title: 'Final' },
  },
];

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe.each(rows)('$kind', (row) => {
  it('plans the exact update, applies it, then plans nothing', async () => {
    emu = await emulator(row.seed);
    const dir = testdir({ 'doc.yaml': row.doc });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    const [change] = JSON.parse(plan.stdout).changes;
    expect(change).toMatchObject({
      action: 'update',
      update_mask: row.mask,
      request: { method: row.method, path: row.path },
    });

    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('1 applied, 0 failed');

    const [path, wrapper, field, expected] = row.check;
    const read = await call(emu, 'GET', path);
    const resource = wrapper ? read.body[wrapper] : read.body;
    expect(resource[field]).toEqual(expected);
    expect(Object.fromEntries(Object.keys(row.keeps).map((k) => [k, resource[k]]))).toEqual(row.keeps);

    const again = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^No changes\. 1 resource up to date\./m);
  });
});

// The emulator's collection each create lands in, how many it then holds (the events: the template and its copy),
// and a field the created resource must have.
// prettier-ignore
const creatable = [
  { kind: 'Offer', doc: { kind: 'Offer', name: 'n', spec: { project_id: 'p1', name: 'New offer', priority: 3 } }, key: 'offers', count: 1, holds: { name: 'New offer' } },
  { kind: 'StandingPhase', doc: { kind: 'StandingPhase', name: 'n', spec: { project_id: 'p1', localized_name: { en: 'Playoffs' } } }, key: 'standing_phases', count: 1, holds: { localized_name: { en: 'Playoffs' } } },
  { kind: 'StreamingConfiguration', doc: { kind: 'StreamingConfiguration', name: 'n', spec: { project_id: 'p1', name: 'Tags', type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING', data: { automated_tagging: { enabled: true } } } }, key: 'configurations', count: 1, holds: { name: 'Tags' } },
  { kind: 'VideoProtectionRuleset', doc: { kind: 'VideoProtectionRuleset', name: 'n', spec: { project_id: 'p1', name: 'Strict', require_authentication: true } }, key: 'video_protection_rulesets', count: 1, holds: { name: 'Strict' } },
  { kind: 'Event', doc: { kind: 'Event', name: 'n', duplicate_from: 'e1', spec: { title: '%@ (replay)', start_time: '2026-07-01T18:00:00Z' } }, key: 'events', count: 2, holds: { title: 'Final (replay)' } },
];

describe.each(creatable)('$kind create', (row) => {
  it('creates once, records the id in the state, and a second apply changes nothing', async () => {
    emu = await emulator({ events: [{ id: 'e1', project_id: 'p1', title: 'Final' }] });
    const dir = testdir({ 'doc.yaml': row.doc });
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir });
    expect(apply.code).toBe(0);
    const result = JSON.parse(apply.stdout);
    expect(result.results).toEqual([
      { address: `${row.kind}/n`, action: 'create', outcome: 'applied', id: expect.any(String) },
    ]);
    const again = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes. 1 resource up to date.');
    const collection = emu.store.collections.get(row.key)!;
    expect(collection.size).toBe(row.count);
    expect(collection.get(result.results[0].id)).toMatchObject({ project_id: 'p1', ...row.holds });
  });
});
