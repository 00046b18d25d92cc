// Values from the environment are sensitive by default (as Terraform's sensitive variables): shown as (sensitive)
// in every output and in the saved plan, sent only in the request, never stored in the state.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const VALUE = 'partner-7Hq2-value';
const env = { PARTNER_ID: VALUE, SHORT: 'x1' };

it('an ${env.NAME} value is (sensitive) in text, JSON, Markdown and the saved plan; apply --plan sends it; the state never holds it', async () => {
  emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'Premium' }] });
  const dir = testdir({
    'a.yaml': {
      kind: 'Offer',
      name: 'premium',
      id: 'off_1',
      spec: {
        name: 'Premium',
        billing_partner_offer_id: '${env.PARTNER_ID}',
        localized_title: { en: 'code ${env.SHORT}' },
      },
    },
  });
  for (const format of ['text', 'json', 'markdown']) {
    const run = await runCli(['plan', ...against(emu.url, dir), '--format', format], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('(sensitive)');
    expect(run.stdout + run.stderr).not.toContain(VALUE);
    expect(run.stdout).not.toContain('code x1');
  }
  await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir, env });
  const saved = readFileSync(join(dir, 'plan.json'), 'utf8');
  expect(saved).not.toContain(VALUE);
  expect(JSON.parse(saved).changes[0].request.body.offer.billing_partner_offer_id).toBe('(sensitive)');
  const apply = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes', '--json'], {
    cwd: dir,
    env,
  });
  expect(apply.code, apply.stderr).toBe(0);
  expect(apply.stdout + apply.stderr).not.toContain(VALUE);
  const stored = emu.store.collections.get('offers')!.get('off_1')!;
  expect(stored.billing_partner_offer_id).toBe(VALUE);
  expect(stored.localized_title).toEqual({ en: 'code x1' });
  const state = readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8');
  expect(state).not.toContain(VALUE);
  expect(state).not.toContain('code x1');
  expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir, env })).code).toBe(0);
});

it('a saved plan whose sensitive value changed in the environment since is refused, without showing either value', async () => {
  emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'Premium' }] });
  const dir = testdir({
    'a.yaml': { kind: 'Offer', name: 'premium', id: 'off_1', spec: { billing_partner_offer_id: '${env.PARTNER_ID}' } },
  });
  await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir, env });
  const run = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], {
    cwd: dir,
    env: { ...env, PARTNER_ID: 'another-value-99' },
  });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('the configuration (documents or variables) changed since the plan was made');
  expect(run.stdout + run.stderr).not.toMatch(/another-value-99|partner-7Hq2/);
  expect(emu.stats.writes).toBe(0);
});

it.each([
  [
    'a policy resource_key',
    { kind: 'Policy', name: 'p', spec: { resource_key: '${env.KEY}', policy: { bindings: [] } } },
    'resource_key',
  ],
  ['an offer project_id', { kind: 'Offer', name: 'o', spec: { project_id: '${env.KEY}', name: 'x' } }, 'project_id'],
])('${env.NAME} cannot name a resource (%s): a located error, nothing sent', async (_, doc, field) => {
  const dir = testdir({ 'a.yaml': doc });
  const run = await runCli(['validate', dir], { cwd: dir, env: { KEY: 'p/p/project' } });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(
    new RegExp(`a\\.yaml:\\d+:\\d+: spec\\.${field} names the resource, so it cannot come from \\$\\{env\\.\\*\\}`),
  );
  expect(run.stderr).not.toContain('p/p/project');
});

it.each([
  ['the id', { kind: 'Event', name: 'e', id: '${env.NAMED}', spec: {} }, 'a\\.yaml:3:\\d+: id', 'evt_secret_1'],
  [
    'duplicate_from',
    { kind: 'Event', name: 'e', duplicate_from: '${env.NAMED}', spec: {} },
    'a\\.yaml:3:\\d+: duplicate_from',
    'evt_secret_1',
  ],
  [
    'moved_from',
    { kind: 'Offer', name: 'o', moved_from: '${env.NAMED}', spec: { project_id: 'p' } },
    'a\\.yaml:3:\\d+: moved_from',
    'Offer/secret-1',
  ],
  [
    'the name',
    { kind: 'Offer', name: '${env.NAMED}', spec: { project_id: 'p' } },
    'a\\.yaml:2:\\d+: name',
    'secret-name-1',
  ],
  [
    'a content type base_type (its read query)',
    { kind: 'ContentType', name: 'c', id: 'ct_1', spec: { project_id: 'p', base_type: '${env.NAMED}' } },
    'a\\.yaml:\\d+:\\d+: spec\\.base_type',
    'BASE_TYPE_EVENT',
  ],
  [
    'a configuration type (its natural identity)',
    { kind: 'StreamingConfiguration', name: 's', spec: { project_id: 'p', name: 'S', type: '${env.NAMED}' } },
    'a\\.yaml:\\d+:\\d+: spec\\.type',
    'CONFIGURATION_TYPE_AUTOMATED_TAGGING',
  ],
])(
  '${env.NAME} cannot name a resource or go into a request path (%s): a located error, nothing sent',
  async (_, doc, where, value) => {
    const dir = testdir({ 'a.yaml': doc });
    const run = await runCli(['validate', dir], { cwd: dir, env: { NAMED: value } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^${where} names the resource, so it cannot come from \\$\\{env\\.\\*\\}`, 'm'),
    );
    expect(run.stderr).not.toContain(value);
  },
);

it('only the sensitive leaf is masked: another price of the same offer reads as it changes, in text, Markdown and the saved plan', async () => {
  const eur = { currency_code: 'EUR', units: '5', nanos: 0 };
  emu = await emulator({
    offers: [
      {
        id: 'off_1',
        project_id: 'p',
        name: 'Premium',
        offer_prices: [{ price: { currency_code: 'USD', units: '9', nanos: 990000000 } }, { price: eur }],
      },
    ],
  });
  const prices = [
    { price: { currency_code: 'USD', units: '14', nanos: 990000000 } },
    { price: { currency_code: 'EUR', units: '${env.EUR_UNITS}' } },
  ];
  const dir = testdir({
    'a.yaml': { kind: 'Offer', name: 'premium', id: 'off_1', spec: { name: 'Premium', offer_prices: prices } },
  });
  // Six digits: a loopback port (five at most) never holds it, so the check below cannot fail by chance.
  const secretEnv = { EUR_UNITS: '734196' };
  const text = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir, env: secretEnv });
  expect(text.stdout).toContain(
    '~ [currency_code=USD].price: 9.99 USD (units 9, nanos 990000000) → 14.99 USD (units 14, nanos 990000000)',
  );
  expect(text.stdout).toContain(
    '~ [currency_code=EUR].price: {"currency_code": "EUR", "units": "(sensitive)"} → {"currency_code": "EUR", "units": "(sensitive, changed)"}',
  );
  const md = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir, env: secretEnv });
  expect(md.stdout).toContain(
    '| `offer_prices[currency_code=USD].price` | `9.99 USD (units 9, nanos 990000000)` | `14.99 USD (units 14, nanos 990000000)` |',
  );
  await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir, env: secretEnv });
  const saved = readFileSync(join(dir, 'plan.json'), 'utf8');
  expect(JSON.parse(saved).changes[0].diff[0].after).toEqual([
    prices[0],
    { price: { currency_code: 'EUR', units: '(sensitive, changed)' } },
  ]);
  for (const out of [text.stdout, md.stdout, saved]) expect(out).not.toContain('734196');
  const apply = await runCli(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes'], {
    cwd: dir,
    env: secretEnv,
  });
  expect(apply.code, apply.stderr).toBe(0);
  expect(emu.store.collections.get('offers')!.get('off_1')!.offer_prices).toMatchObject([
    { price: { units: '14' } },
    { price: { units: '734196' } },
  ]);
});
