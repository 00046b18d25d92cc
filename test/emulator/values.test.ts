// The emulator refuses what the platform refuses (400 invalid_argument), on every write and in its seeds: money as
// google.type.Money, ISO 4217 and ISO 3166-1 alpha-2 codes, resource keys in their documented forms, values a
// closed enum does not have (issue 29), an enum name a slip of a known one (issue 42).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator;
beforeEach(async () => {
  emu = await emulator({
    offers: [{ id: 'off1', project_id: 'p1', name: 'Basic' }],
    configurations: [{ id: 'cfg1', project_id: 'p1', name: 'HD', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS' }],
    video_protection_rulesets: [{ id: 'vpr1', project_id: 'p1', name: 'Geo' }],
    events: [{ id: 'e1', project_id: 'p1', title: 'Final' }],
  });
});
afterEach(() => emu.close());

/** What the emulator holds, as its reads and lists answer it. */
const stored = async () =>
  Promise.all(
    [
      '/monetization/offers/v1?project_id=p1',
      '/streaming/configurations/v1/cfg1',
      '/streaming/video_protection/v1/rulesets/vpr1',
      '/cms/events/v1/e1',
      '/cms/events/v1?project_id=p1',
      '/iam/auth/v1/policies/p1/p1/project',
    ].map(async (p) => (await call(emu, 'GET', p)).body),
  );
const price = (p: object) => ({
  offer_id: 'off1',
  offer: { offer_prices: [{ price: p }] },
  update_mask: 'offer_prices',
});
const invalid = (message: RegExp) => ({
  status: 400,
  body: { code: 'invalid_argument', message: expect.stringMatching(message) },
});

describe('writes the platform refuses', () => {
  it.each([
    [
      'nanos beyond one unit',
      'PATCH',
      '/monetization/offers/v1/off1',
      price({ currency_code: 'GBP', units: '4', nanos: 4900000000 }),
      /nanos 4900000000 is outside/,
    ],
    [
      'nanos and units of different signs',
      'PATCH',
      '/monetization/offers/v1/off1',
      price({ currency_code: 'EUR', units: '9', nanos: -10 }),
      /different signs/,
    ],
    [
      'a currency code outside ISO 4217',
      'POST',
      '/monetization/offers/v1',
      { project_id: 'p1', offer_prices: [{ price: { currency_code: 'GBPP', units: '4' } }] },
      /currency_code: invalid value "GBPP"/,
    ],
    [
      'a country code outside ISO 3166-1 alpha-2',
      'PATCH',
      '/streaming/video_protection/v1/rulesets/vpr1',
      {
        video_protection_ruleset_id: 'vpr1',
        video_protection_ruleset: { geo_restrictions_allow: { country_codes: ['NL', 'XX'] } },
        update_mask: 'geo_restrictions_allow',
      },
      /country_codes\[1\]: invalid value "XX"/,
    ],
    [
      'a venue country code',
      'PATCH',
      '/cms/events/v1/e1',
      {
        event_id: 'e1',
        event_update: { physical_location: { country_code: 'NLD' } },
        update_mask: 'physical_location',
      },
      /invalid value "NLD"/,
    ],
    [
      'a value a closed enum does not have',
      'PATCH',
      '/streaming/configurations/v1/cfg1',
      { configuration_id: 'cfg1', configuration: { type: 'CONFIGURATION_TYPE_LIVE' }, update_mask: 'type' },
      /type: invalid value "CONFIGURATION_TYPE_LIVE"/,
    ],
    [
      'a slip of a known enum name on create (visibility)',
      'POST',
      '/cms/events/v1',
      { project_id: 'p1', title: 'Derby', visibility: 'VISIBILITY_PUBLISHD' },
      /visibility: invalid value "VISIBILITY_PUBLISHD"/,
    ],
    [
      'a slip of a known enum name on update (visibility)',
      'PATCH',
      '/cms/events/v1/e1',
      { event_id: 'e1', event_update: { visibility: 'VISIBILITY_PUBLISHD' }, update_mask: 'visibility' },
      /visibility: invalid value "VISIBILITY_PUBLISHD"/,
    ],
    [
      'a slip of a known enum name in a duplicate',
      'POST',
      '/cms/events/v1/e1/duplicate',
      { event_id: 'e1', event: { status: 'EVENT_STATUS_FINISHD' }, update_mask: 'status' },
      /status: invalid value "EVENT_STATUS_FINISHD"/,
    ],
    [
      'a slip of a known enum name deep in a message (billing period)',
      'PATCH',
      '/monetization/offers/v1/off1',
      {
        offer_id: 'off1',
        offer: { offer_prices: [{ billing_period: 'BILLING_PERIOD_MONTLY' }] },
        update_mask: 'offer_prices',
      },
      /offer_prices\[0\]\.billing_period: invalid value "BILLING_PERIOD_MONTLY"/,
    ],
    [
      'an enum value that is no enum name at all',
      'PATCH',
      '/cms/events/v1/e1',
      { event_id: 'e1', event_update: { visibility: 'published' }, update_mask: 'visibility' },
      /visibility: invalid value "published"/,
    ],
    [
      'a resource key of two ids',
      'PUT',
      '/iam/auth/v1/policies/org1/proj1',
      { policy: { bindings: [] } },
      /malformed resource_key "org1\/proj1"/,
    ],
    [
      'a resource key whose type is not a lower-case word',
      'PUT',
      '/iam/auth/v1/policies/e1/p1/Event',
      { policy: { bindings: [] } },
      /malformed resource_key/,
    ],
    [
      'a project key naming two projects',
      'PUT',
      '/iam/auth/v1/policies/p1/p2/project',
      { policy: { bindings: [] } },
      /names two projects/,
    ],
  ])('%s: 400, nothing stored', async (_, method, path, body, message) => {
    const before = await stored();
    expect(await call(emu, method, path, body)).toMatchObject(invalid(message));
    expect(await stored()).toEqual(before);
  });

  it.each([
    [
      'a negative amount',
      'PATCH',
      '/monetization/offers/v1/off1',
      price({ currency_code: 'USD', units: '-1', nanos: -500000000 }),
    ],
    [
      'country codes',
      'PATCH',
      '/streaming/video_protection/v1/rulesets/vpr1',
      {
        video_protection_ruleset_id: 'vpr1',
        video_protection_ruleset: { geo_restrictions_allow: { country_codes: ['NL', 'GB'] } },
        update_mask: 'geo_restrictions_allow',
      },
    ],
    [
      'a known value of a closed enum',
      'PATCH',
      '/streaming/configurations/v1/cfg1',
      {
        configuration_id: 'cfg1',
        configuration: { type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING' },
        update_mask: 'type',
      },
    ],
    [
      'a known value of an enum whose full list is not public',
      'POST',
      '/cms/events/v1',
      { project_id: 'p1', title: 'Derby', visibility: 'VISIBILITY_PUBLISHED', status: 'EVENT_STATUS_SCHEDULED' },
    ],
    [
      // The platform may have values its reference does not show: only a slip of a known one is surely none.
      'an unknown enum name that is no slip of a known one',
      'PATCH',
      '/monetization/offers/v1/off1',
      {
        offer_id: 'off1',
        offer: { offer_prices: [{ billing_period: 'BILLING_PERIOD_YEARLY' }] },
        update_mask: 'offer_prices',
      },
    ],
    ['a project key', 'PUT', '/iam/auth/v1/policies/p1/p1/project', { policy: { bindings: [] } }],
    ['an event key', 'PUT', '/iam/auth/v1/policies/e1/p1/event', { policy: { bindings: [] } }],
  ])('accepts %s', async (_, method, path, body) => {
    expect((await call(emu, method, path, body)).status).toBe(200);
  });

  it('refuses a seed holding a value the platform refuses', async () => {
    await expect(
      emulator({
        offers: [
          {
            id: 'o',
            project_id: 'p',
            offer_prices: [{ price: { currency_code: 'EUR', units: '9', nanos: 1990000000 } }],
          },
        ],
      }),
    ).rejects.toThrow(/nanos 1990000000 is outside/);
  });
});
