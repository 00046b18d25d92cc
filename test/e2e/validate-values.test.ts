// Values the platform refuses are refused by validate too, located (file:line:col), exit 1, nothing sent: money as
// google.type.Money, ISO codes, a policy's resource key in its documented forms, and enums (issue 29).
import { describe, expect, it } from 'vitest';
import { runCli, testdir } from '../helpers/cli.js';

const offerWith = (price: string) =>
  `kind: Offer\nname: o\nspec:\n  project_id: p\n  offer_prices:\n    - price: ${price}\n`;
const ruleset = (codes: string) =>
  `kind: VideoProtectionRuleset\nname: r\nspec:\n  project_id: p\n  name: R\n  geo_restrictions_allow: { country_codes: ${codes} }\n`;
const policyKey = (key: string) => `kind: Policy\nname: k\nspec:\n  resource_key: ${key}\n  policy: { bindings: [] }\n`;

const refused: Array<[string, string, RegExp]> = [
  [
    'nanos beyond one unit',
    offerWith('{ currency_code: GBP, units: 4, nanos: 4900000000 }'),
    /^a\.yaml:6:46: spec\.offer_prices\[0\]\.price\.nanos: must be <= 999999999/m,
  ],
  [
    'nanos of a whole unit and more',
    offerWith('{ currency_code: EUR, units: 9, nanos: 1990000000 }'),
    /^a\.yaml:6:46: spec\.offer_prices\[0\]\.price\.nanos: must be <= 999999999/m,
  ],
  [
    'nanos below minus one unit',
    offerWith('{ currency_code: EUR, units: -1, nanos: -1000000000 }'),
    /^a\.yaml:6:47: spec\.offer_prices\[0\]\.price\.nanos: must be >= -999999999/m,
  ],
  [
    'nanos and units of different signs',
    offerWith('{ currency_code: EUR, units: 9, nanos: -10 }'),
    /^a\.yaml:6:46: spec\.offer_prices\[0\]\.price\.nanos: nanos -10 and units 9 have different signs/m,
  ],
  [
    'a currency code that is no ISO 4217 code',
    offerWith('{ currency_code: GBPP, units: 4 }'),
    /^a\.yaml:6:16: spec\.offer_prices\[0\]\.price\.currency_code: "GBPP" is not a valid value \(ISO 4217 currency code, e\.g\. EUR\): did you mean GBP\?/m,
  ],
  [
    'a lower-case currency code',
    offerWith('{ currency_code: eur, units: 4 }'),
    /spec\.offer_prices\[0\]\.price\.currency_code: "eur" is not a valid value/,
  ],
  [
    'a country code that is no ISO 3166-1 alpha-2 code',
    ruleset('[NL, XX]'),
    /^a\.yaml:6:49: spec\.geo_restrictions_allow\.country_codes\[1\]: "XX" is not a valid value \(ISO 3166-1 alpha-2/m,
  ],
  [
    'an alpha-3 country code',
    ruleset('[NLD]'),
    /country_codes\[0\]: "NLD" is not a valid value \(ISO 3166-1 alpha-2 country code, e\.g\. NL\): did you mean NL\?/,
  ],
  [
    'a venue country code',
    'kind: Event\nname: e\nid: e1\nspec:\n  physical_location: { country_code: Netherlands }\n',
    /^a\.yaml:5:24: spec\.physical_location\.country_code: "Netherlands" is not a valid value/m,
  ],
  [
    'a resource key of two ids',
    policyKey('org1/proj1'),
    /^a\.yaml:4:3: spec\.resource_key: "org1\/proj1" is not a valid resource key: <org>\/organization/m,
  ],
  [
    'a resource key of four parts',
    policyKey('a/b/c/event'),
    /spec\.resource_key: "a\/b\/c\/event" is not a valid resource key/,
  ],
  [
    'a resource key whose type is not lower case',
    policyKey('e1/p1/Event'),
    /spec\.resource_key: "e1\/p1\/Event" is not a valid resource key/,
  ],
  [
    'a project key naming two projects',
    policyKey('p1/p2/project'),
    /^a\.yaml:4:3: spec\.resource_key: "p1\/p2\/project" names two projects: a project's resource key is <project>\/<project>\/project \(p2\/p2\/project\?\)/m,
  ],
  [
    'a slip of a known value of an enum whose full list is not public',
    offerWith('{ currency_code: EUR, units: 4 }\n      billing_period: BILLING_PERIOD_MONTLY'),
    /^a\.yaml:7:7: spec\.offer_prices\[0\]\.billing_period: BILLING_PERIOD_MONTLY is not a known value: did you mean BILLING_PERIOD_MONTHLY\?/m,
  ],
  [
    'a slip of a known visibility',
    'kind: Offer\nname: o\nspec:\n  project_id: p\n  visibility: VISIBILITY_PUBLISHD\n',
    /^a\.yaml:5:3: spec\.visibility: VISIBILITY_PUBLISHD is not a known value: did you mean VISIBILITY_PUBLISHED\?/m,
  ],
  [
    'a value a closed enum does not have',
    'kind: StreamingConfiguration\nname: s\nspec:\n  project_id: p\n  name: S\n  type: CONFIGURATION_TYPE_TRANSCODER_STREAM\n',
    /^a\.yaml:6:3: spec\.type: "CONFIGURATION_TYPE_TRANSCODER_STREAM" is not a valid value \(one of CONFIGURATION_TYPE_UNSPECIFIED, CONFIGURATION_TYPE_TRANSCODER_STREAMS, CONFIGURATION_TYPE_TRANSCODER_OVERLAYS, CONFIGURATION_TYPE_AUTOMATED_TAGGING\): did you mean CONFIGURATION_TYPE_TRANSCODER_STREAMS\?/m,
  ],
  [
    'any other value of a closed enum',
    'kind: StreamingConfiguration\nname: s\nspec:\n  project_id: p\n  name: S\n  type: CONFIGURATION_TYPE_LIVE_CLIPS\n',
    /^a\.yaml:6:3: spec\.type: "CONFIGURATION_TYPE_LIVE_CLIPS" is not a valid value \(one of /m,
  ],
];

const accepted: Array<[string, string, string]> = [
  ['a negative amount', offerWith('{ currency_code: USD, units: -1, nanos: -500000000 }'), ''],
  ['nanos at their limit', offerWith('{ currency_code: EUR, units: "9", nanos: 999999999 }'), ''],
  ['nanos alone, negative', offerWith('{ currency_code: JPY, nanos: -5 }'), ''],
  ['country codes', ruleset('[NL, DE, GB, US]'), ''],
  [
    'every documented resource key form',
    `${policyKey('org1/organization')}---\n${policyKey('p1/p1/project').replace('name: k', 'name: k2')}---\n` +
      `${policyKey('e1/p1/event').replace('name: k', 'name: k3')}---\n${policyKey('"${Event/e.id}/p1/event"').replace('name: k', 'name: k4')}---\n` +
      'kind: Event\nname: e\nid: e9\nspec: {}\n',
    '',
  ],
  [
    'an unknown value far from every known one: a warning',
    offerWith('{ currency_code: EUR, units: 4 }\n      billing_period: BILLING_PERIOD_YEARLY'),
    'a.yaml:7:7: warning: spec.offer_prices[0].billing_period: BILLING_PERIOD_YEARLY is not a known value (BILLING_PERIOD_UNSPECIFIED, BILLING_PERIOD_MONTHLY); sending it anyway\n',
  ],
  [
    'two short values that differ by design: a warning',
    'kind: StreamingConfiguration\nname: s\nspec:\n  project_id: p\n  name: S\n  type: CONFIGURATION_TYPE_TRANSCODER_STREAMS\n' +
      '  data: { transcoder_streams: { streams: [ { video_quality: VIDEO_QUALITY_SD } ] } }\n',
    '',
  ],
];

describe('validate refuses values the platform refuses', () => {
  it.each(refused)('%s', async (_, text, message) => {
    const dir = testdir({ 'a.yaml': text });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.stderr).toMatch(message);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/error(s)?; nothing was sent\.\n$/);
  });

  it.each(accepted)('accepts %s', async (_, text, stderr) => {
    const dir = testdir({ 'a.yaml': text });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr });
  });
});
