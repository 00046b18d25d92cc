// The example rules in examples/rules/ (issue 34), each copied into a configuration's rules/ folder and planned
// against the emulator: a change it lets through (exit 2) and one it denies (exit 1, the rule named).
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator, type Seed } from '../helpers/emulator.js';

const examples = resolve(import.meta.dirname, '../../examples/rules');
let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const eur = (units: string, nanos = 0) => ({
  price: { currency_code: 'EUR', units, nanos },
  billing_period: 'BILLING_PERIOD_MONTHLY',
});
const offer = (spec: object) => ({
  kind: 'Offer',
  name: 'premium',
  id: 'o1',
  spec: { project_id: 'p', name: 'Premium', ...spec },
});
const newOffer = (spec: object) => ({
  kind: 'Offer',
  name: 'launch',
  spec: { project_id: 'p', name: 'Launch', ...spec },
});
const ruleset = (codes: string[]) => ({
  kind: 'VideoProtectionRuleset',
  name: 'geo',
  id: 'vpr1',
  spec: { project_id: 'p', geo_restrictions_disallow: { country_codes: codes } },
});
const event = (id: string, spec: object) => ({ kind: 'Event', name: id, id, spec: { project_id: 'p', ...spec } });

const seed: Seed = {
  offers: [{ id: 'o1', project_id: 'p', name: 'Premium', offer_prices: [eur('10')] }],
  video_protection_rulesets: [
    { id: 'vpr1', project_id: 'p', name: 'Geo', geo_restrictions_disallow: { country_codes: ['US', 'CN'] } },
  ],
  events: [
    { id: 'e1', project_id: 'p', title: 'Final', start_time: '2030-01-01T18:00:00Z' },
    { id: 'e2', project_id: 'p', title: 'Old final', start_time: '2020-01-01T18:00:00Z' },
  ],
};

/** [example, what the change is, its documents, the rule it must break (none: it passes)] */
const cases: Array<[string, string, object[], string | null]> = [
  ['no-big-price-drop', 'a price from 10.00 to 5.00 EUR', [offer({ offer_prices: [eur('5')] })], null],
  [
    'no-big-price-drop',
    'a price from 10.00 to 4.99 EUR',
    [offer({ offer_prices: [eur('4', 990000000)] })],
    'no-big-price-drop',
  ],
  [
    'no-big-price-drop',
    'a price from 10.00 to 0.50 EUR (units unset)',
    [
      offer({
        offer_prices: [{ price: { currency_code: 'EUR', nanos: 500000000 }, billing_period: 'BILLING_PERIOD_MONTHLY' }],
      }),
    ],
    'no-big-price-drop',
  ],
  ['keep-geo-restrictions', 'a country added to the disallowed', [ruleset(['US', 'CN', 'RU'])], null],
  ['keep-geo-restrictions', 'a disallowed country removed', [ruleset(['US'])], 'keep-geo-restrictions'],
  [
    'published-offers-have-eur',
    'a published offer with a EUR price',
    [newOffer({ visibility: 'VISIBILITY_PUBLISHED', offer_prices: [eur('9')] })],
    null,
  ],
  [
    'published-offers-have-eur',
    'an unpublished offer without one',
    [newOffer({ offer_prices: [{ price: { currency_code: 'USD', units: '9' } }] })],
    null,
  ],
  [
    'published-offers-have-eur',
    'a published offer priced in USD only',
    [newOffer({ visibility: 'VISIBILITY_PUBLISHED', offer_prices: [{ price: { currency_code: 'USD', units: '9' } }] })],
    'published-offers-have-eur',
  ],
  ['event-start-not-in-past', 'a start moved later', [event('e1', { start_time: '2031-01-01T18:00:00Z' })], null],
  [
    'event-start-not-in-past',
    'a past start left alone, the title changed',
    [event('e2', { title: 'The old final' })],
    null,
  ],
  [
    'event-start-not-in-past',
    'a start moved into the past',
    [event('e1', { start_time: '2020-06-01T18:00:00Z' })],
    'event-start-not-in-past',
  ],
];

/** A configuration with one example rules file, and the documents. */
function configuration(
  example: string,
  docs: object[],
  files: Record<string, string | object | object[]> = {},
): string {
  const dir = testdir({ 'docs.yaml': docs, ...files });
  mkdirSync(join(dir, 'rules'));
  copyFileSync(join(examples, `${example}.yaml`), join(dir, 'rules', `${example}.yaml`));
  return dir;
}

describe('examples/rules', () => {
  it.each(cases)('%s: %s', async (example, _, docs, breaks) => {
    emu = await emulator(seed);
    const dir = configuration(example, docs);
    const run = await runCli(['plan', ...against(emu.url, dir), '--json', '--detailed-exitcode'], { cwd: dir });
    const results = JSON.parse(run.stdout).rules.results as Array<{ rule: string; outcome: string }>;
    expect(results.map((r) => `${r.rule} ${r.outcome}`)).toEqual(breaks ? [`${breaks} failed`] : []);
    expect(run.code).toBe(breaks ? 1 : 2);
  });

  it('keep-geo-restrictions: an allowance lets the lifted restriction through, with its reason', async () => {
    emu = await emulator(seed);
    const dir = configuration('keep-geo-restrictions', [ruleset(['US'])]);
    const run = await runCli(
      [
        'apply',
        ...against(emu.url, dir),
        '--yes',
        '--json',
        '--allow',
        'keep-geo-restrictions=US launch approved by legal',
      ],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).allowances).toEqual([
      { rule: 'keep-geo-restrictions', reason: 'US launch approved by legal' },
    ]);
  });

  it('no-release-in-production: a removed document is released in staging, denied in production', async () => {
    emu = await emulator(seed);
    // One emulator for both environments: each its own project, or production's create would find staging's offer.
    // Named: the second directory takes the first one's states, so both are one configuration.
    const project = {
      'tapedeck.yaml': {
        version: 1,
        name: 'catalog',
        environments: { staging: { vars: { project: 'p_st' } }, production: { vars: { project: 'p_pr' } } },
      },
    };
    const offer = (name: string, title: string) => ({
      kind: 'Offer',
      name,
      spec: { project_id: '${var.project}', name: title },
    });
    const both = [offer('launch', 'Launch'), offer('other', 'Other')];
    const dir = configuration('no-release-in-production', both, project);
    for (const env of ['staging', 'production'])
      expect((await runCli(['apply', ...against(emu.url, dir), '--env', env, '--yes'], { cwd: dir })).code).toBe(0);
    const one = configuration('no-release-in-production', [offer('launch', 'Launch')], project);
    for (const env of ['staging', 'production'])
      copyFileSync(join(dir, `.tapedeck/${env}.state.json`), join(mkdirp(one), `${env}.state.json`));
    const staging = await runCli(['plan', ...against(emu.url, one), '--env', 'staging', '--detailed-exitcode'], {
      cwd: one,
    });
    expect(staging.code).toBe(2);
    const production = await runCli(['plan', ...against(emu.url, one), '--env', 'production', '--detailed-exitcode'], {
      cwd: one,
    });
    expect(production.code).toBe(1);
    expect(production.stderr).toContain(
      'error: rule no-release-in-production denies Offer/other (release): a resource would be released',
    );
  });
});

const mkdirp = (dir: string) => {
  mkdirSync(join(dir, '.tapedeck'), { recursive: true });
  return join(dir, '.tapedeck');
};
