// The emulator's endpoints over real HTTP: reads, creates, updates of every kind, in the live API's style.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator;
beforeEach(async () => {
  emu = await emulator({
    offers: [{ id: 'off1', project_id: 'p1', name: 'Basic', priority: 5, offer_prices: [{ price: { units: 4 } }] }],
    content_types: [{ id: 'ct1', project_id: 'p1', base_type: 'BASE_TYPE_EVENT', name: 'Match' }],
    standing_phases: [{ id: 'sp1', project_id: 'p1' }],
    creative_works: [{ id: 'cw1', project_id: 'p1', title: 'A' }],
    rtmp_ingests: [{ id: 'ing1', project_id: 'p1', key: 'sk_1', name: 'Cam' }],
    configurations: [
      { id: 'cfg1', project_id: 'p1', name: 'HD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: true },
    ],
    video_protection_rulesets: [{ id: 'vpr1', project_id: 'p1', name: 'Geo' }],
    vods: [{ id: 'vod1', project_id: 'p1', name: 'Replay', state: 'STATE_READY' }],
    banners: [{ id: 'b1', project_id: 'p1', name: 'Hero' }],
    events: [{ id: 'e1', project_id: 'p1', title: 'Final', start_time: '2026-06-01T20:00:00+02:00' }],
    policies: [{ resource_key: 'org1/organization', policy: { bindings: [] } }],
    action_configurations: [{ annotation_type_id: 'at1', configuration: { a: {} } }],
  });
});
afterEach(() => emu.close());

describe('reads in the live API style', () => {
  it.each([
    ['/monetization/offers/v1/off1', 'offer'],
    ['/cms/types/v1/ct1?base_type=BASE_TYPE_EVENT&project_id=p1', 'type'],
    ['/cms/standing_phases/v1/sp1', 'standing_phase'],
    ['/cms/creative_works/v1/cw1', 'creative_work'],
    ['/streaming/rtmp_ingests/v1/ing1', 'rtmp_ingest'],
    ['/streaming/configurations/v1/cfg1', 'configuration'],
    ['/streaming/video_protection/v1/rulesets/vpr1', 'video_protection_ruleset'],
    ['/streaming/vods/v1/vod1', 'vod'],
    ['/cms/banners/v1/b1', 'banner'],
    ['/cms/events/v1/e1', 'event'],
  ])('GET %s answers {%s: ...}', async (path, wrapper) => {
    const res = await call(emu, 'GET', path);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([wrapper]);
    expect(typeof res.body[wrapper].id).toBe('string');
  });

  it('emits unset fields as zero values and null, nested ones too, int64 as strings', async () => {
    const { body } = await call(emu, 'GET', '/monetization/offers/v1/off1');
    expect(body.offer).toMatchObject({
      priority: '5',
      concurrency_limit: '0',
      billing_partner_offer_id: '',
      applies_to_all: false,
      target: null,
      localized_title: {},
      visibility: 'VISIBILITY_UNSPECIFIED',
    });
    expect(body.offer.offer_prices[0]).toMatchObject({
      price: { currency_code: '', units: '4', nanos: 0 },
      msrp_price: null,
      billing_period: 'BILLING_PERIOD_UNSPECIFIED',
      priority: '0',
    });
  });

  it('normalises timestamps to UTC', async () => {
    const { body } = await call(emu, 'GET', '/cms/events/v1/e1');
    expect(body.event.start_time).toBe('2026-06-01T18:00:00Z');
    expect(body.event.create_time).toBeNull();
  });

  it('a content type is looked up within its project and base type', async () => {
    expect((await call(emu, 'GET', '/cms/types/v1/ct1?base_type=BASE_TYPE_ENTITY&project_id=p1')).status).toBe(404);
  });

  it('policy and action configuration reads', async () => {
    const p = await call(emu, 'GET', '/iam/auth/v1/policies/org1/organization');
    expect(p.body).toEqual({ policy: { bindings: [] }, etag: expect.any(String) });
    expect((await call(emu, 'GET', '/iam/auth/v1/policies/org2/organization')).status).toBe(404);
    const never = await call(emu, 'GET', '/annotations/types/v1/at9/action_configuration');
    expect(never).toMatchObject({ status: 200, body: { configuration: {}, conditions: [] } });
  });

  it('unknown ids are 404 not_found', async () => {
    const res = await call(emu, 'GET', '/monetization/offers/v1/nope');
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found', details: [] } });
  });
});

describe('creates', () => {
  it.each([
    ['/monetization/offers/v1', 'offer', { project_id: 'p1', name: 'New' }],
    ['/cms/standing_phases/v1', 'standing_phase', { project_id: 'p1' }],
    [
      '/streaming/configurations/v1',
      'configuration',
      { project_id: 'p1', name: 'Tags', type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING' },
    ],
    ['/streaming/video_protection/v1/rulesets', 'video_protection_ruleset', { project_id: 'p1', name: 'Strict' }],
  ])('POST %s takes top-level fields and answers the wrapped resource', async (path, wrapper, body) => {
    const res = await call(emu, 'POST', path, { ...body, id: 'mine' });
    expect(res.status).toBe(200);
    expect(res.body[wrapper]).toMatchObject(body);
    expect(res.body[wrapper].id).not.toBe('mine');
    expect((await call(emu, 'GET', `${path}/${res.body[wrapper].id}`)).status).toBe(200);
  });

  it('a configuration create needs project_id and name', async () => {
    const res = await call(emu, 'POST', '/streaming/configurations/v1', { name: 'x' });
    expect(res).toMatchObject({ status: 400, body: { code: 'invalid_argument', message: 'project_id is required' } });
  });

  it('duplicates an event: copy, masked fields applied, %@ is the original value', async () => {
    const res = await call(emu, 'POST', '/cms/events/v1/e1/duplicate', {
      event_id: 'e1',
      event: { title: '%@ (replay)', description: 'ignored' },
      update_mask: 'title',
    });
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({
      title: 'Final (replay)',
      description: '',
      start_time: '2026-06-01T18:00:00Z',
      project_id: 'p1',
    });
    expect(res.body.event.id).not.toBe('e1');
    expect(res.body.event.create_time).toMatch(/Z$/);
  });

  it('duplicating a missing event is 404, a mismatched event_id 400', async () => {
    expect((await call(emu, 'POST', '/cms/events/v1/nope/duplicate', {})).status).toBe(404);
    expect((await call(emu, 'POST', '/cms/events/v1/e1/duplicate', { event_id: 'e2' })).status).toBe(400);
  });
});

describe('updates', () => {
  it.each([
    ['/monetization/offers/v1/off1', { offer_id: 'off1', offer: { name: 'X' }, update_mask: 'name' }, 'offer'],
    [
      '/cms/standing_phases/v1/sp1',
      { standing_phase_id: 'sp1', standing_phase: { localized_name: { en: 'X' } }, update_mask: 'localized_name' },
      'standing_phase',
    ],
    [
      '/cms/creative_works/v1/cw1',
      { creative_work_id: 'cw1', creative_work_update: { title: 'X' }, update_mask: 'title' },
      'creative_work',
    ],
    [
      '/streaming/rtmp_ingests/v1/ing1',
      { rtmp_ingest_id: 'ing1', rtmp_ingest: { name: 'X' }, update_mask: 'name' },
      'rtmp_ingest',
    ],
    [
      '/streaming/configurations/v1/cfg1',
      { configuration_id: 'cfg1', configuration: { name: 'X' }, update_mask: 'name' },
      'configuration',
    ],
    [
      '/streaming/video_protection/v1/rulesets/vpr1',
      { video_protection_ruleset_id: 'vpr1', video_protection_ruleset: { name: 'X' }, update_mask: 'name' },
      'video_protection_ruleset',
    ],
    ['/streaming/vods/v1/vod1', { vod_id: 'vod1', vod: { name: 'X' }, update_mask: 'name' }, 'vod'],
    ['/cms/banners/v1/b1', { banner_id: 'b1', banner_update: { name: 'X' }, update_mask: 'name' }, 'banner'],
    ['/cms/events/v1/e1', { event_id: 'e1', event_update: { title: 'X' }, update_mask: 'title' }, 'event'],
  ])('PATCH %s', async (path, body, wrapper) => {
    const res = await call(emu, 'PATCH', path, body);
    expect(res.status).toBe(200);
    const field = Object.keys(Object.values(body)[1] as object)[0];
    expect(res.body[wrapper][field]).toEqual(Object.values(Object.values(body)[1] as object)[0]);
  });

  it('PATCH /cms/types/v1 names the type in the body', async () => {
    const res = await call(emu, 'PATCH', '/cms/types/v1', {
      base_type: 'BASE_TYPE_EVENT',
      type: { id: 'ct1', name: 'Game' },
      update_mask: 'name',
    });
    expect(res.body.type).toMatchObject({ id: 'ct1', name: 'Game', project_id: 'p1' });
    expect((await call(emu, 'PATCH', '/cms/types/v1', { type: { name: 'x' }, update_mask: 'name' })).status).toBe(400);
  });

  it('a path in the mask absent from the body clears the field; a parent path replaces the whole message', async () => {
    await call(emu, 'PATCH', '/cms/events/v1/e1', {
      event_id: 'e1',
      event_update: { physical_location: { venue: 'A', city: 'B' } },
      update_mask: 'physical_location',
    });
    await call(emu, 'PATCH', '/cms/events/v1/e1', {
      event_id: 'e1',
      event_update: { physical_location: { city: 'C' } },
      update_mask: 'physical_location.city',
    });
    let { body } = await call(emu, 'GET', '/cms/events/v1/e1');
    expect(body.event.physical_location).toMatchObject({ venue: 'A', city: 'C' });
    await call(emu, 'PATCH', '/cms/events/v1/e1', {
      event_id: 'e1',
      event_update: { physical_location: { city: 'D' } },
      update_mask: 'physical_location',
    });
    ({ body } = await call(emu, 'GET', '/cms/events/v1/e1'));
    expect(body.event.physical_location).toMatchObject({ venue: '', city: 'D' });
    await call(emu, 'PATCH', '/cms/events/v1/e1', { event_id: 'e1', event_update: {}, update_mask: 'title' });
    ({ body } = await call(emu, 'GET', '/cms/events/v1/e1'));
    expect(body.event.title).toBe('');
  });

  it('without a mask, every field present in the body is updated', async () => {
    const res = await call(emu, 'PATCH', '/monetization/offers/v1/off1', { offer: { name: 'Y', priority: 7 } });
    expect(res.body.offer).toMatchObject({ name: 'Y', priority: '7', project_id: 'p1' });
  });

  it.each([
    [{ offer_id: 'off2', offer: { name: 'X' }, update_mask: 'name' }, /does not match/],
    [{ offer: { name: 'X' }, update_mask: 'nope' }, /unknown field path "nope"/],
    [{ offer: { name: 'X' }, update_mask: 'id' }, /output only/],
    [{ offer: { name: 'X' }, update_mask: 'offer_prices.price' }, /unknown field path/],
    [{ offer: { name: 'X' }, update_mask: 'name,,' }, /malformed path/],
    [{ offer: { name: 5 }, update_mask: 'name' }, /offer.name: expected a string/],
    [{ offer: { bogus: 1 }, update_mask: 'name' }, /^unknown field offer.bogus$/],
    [{ offer: { priority: 'ten' }, update_mask: 'priority' }, /expected an int64/],
  ])('rejects %j with 400', async (body, message) => {
    const res = await call(emu, 'PATCH', '/monetization/offers/v1/off1', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_argument');
    expect(res.body.message).toMatch(message);
  });

  it('a read-only field in an ingest mask is 400; the key is never writable', async () => {
    const res = await call(emu, 'PATCH', '/streaming/rtmp_ingests/v1/ing1', {
      rtmp_ingest: { key: 'x' },
      update_mask: 'key',
    });
    expect(res.status).toBe(400);
    expect((await call(emu, 'GET', '/streaming/rtmp_ingests/v1/ing1')).body.rtmp_ingest.key).toBe('sk_1');
  });

  it('PATCH of a missing resource is 404', async () => {
    expect(
      (await call(emu, 'PATCH', '/streaming/vods/v1/nope', { vod: { name: 'x' }, update_mask: 'name' })).status,
    ).toBe(404);
  });
});
