// A value from the environment that is itself invalid: the message names the field and says what is wrong, but never
// quotes the value, whatever its length (the output's masking covers only values of 8 characters or more), and
// suggests no "did you mean": a known value a slip away from the secret would give the secret away.
import { expect, it } from 'vitest';
import { runCli, testdir } from '../helpers/cli.js';

/** Every spelling of `secret` an output could carry. */
const spellings = (secret: string) => [
  secret,
  JSON.stringify(secret).slice(1, -1),
  encodeURIComponent(secret),
  secret.toLowerCase(),
];

const offer = (price: object, billing_period = 'BILLING_PERIOD_MONTHLY') => ({
  kind: 'Offer',
  name: 'o',
  spec: { project_id: 'p', name: 'x', offer_prices: [{ price, billing_period }] },
});

it.each([
  ['a currency code (a closed enum) a slip from a known one', offer({ currency_code: '${env.S}', units: '5' }), 'EUx'],
  ['a currency code, long', offer({ currency_code: '${env.S}', units: '5' }), 'EURO-partner-key-77'],
  ['an int64 that is no integer', offer({ currency_code: 'EUR', units: '${env.S}' }), '12ab'],
  ['an int64 out of range', offer({ currency_code: 'EUR', units: '${env.S}' }), '99999999999999999999'],
  ['an enum name in lower case', offer({ currency_code: 'EUR', units: '1' }, '${env.S}'), 'monthly'],
  [
    'an enum value a slip from a known one',
    offer({ currency_code: 'EUR', units: '1' }, '${env.S}'),
    'BILLING_PERIOD_MONTLY',
  ],
  ['a timestamp', { kind: 'Event', name: 'e', id: 'evt_1', spec: { start_time: '${env.S}' } }, '2026-13-01 20:00'],
  [
    'a value inside a longer string',
    { kind: 'Event', name: 'e', id: 'evt_1', spec: { start_time: 'at ${env.S}' } },
    'k3y-9',
  ],
])('an invalid value from the environment (%s) is reported without its value', async (_, doc, secret) => {
  const dir = testdir({ 'a.yaml': doc });
  for (const format of ['text', 'json', 'github', 'markdown']) {
    const run = await runCli(['validate', dir, '--format', format], { cwd: dir, env: { S: secret } });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout + run.stderr).toContain('(sensitive)');
    expect(run.stdout + run.stderr).not.toMatch(/did you mean/);
    for (const s of spellings(secret)) expect(run.stdout + run.stderr).not.toContain(s);
  }
});

it('an unknown enum value from the environment is a warning that does not quote it', async () => {
  const dir = testdir({ 'a.yaml': offer({ currency_code: 'EUR', units: '1' }, '${env.S}') });
  const run = await runCli(['validate', dir], { cwd: dir, env: { S: 'WEEKLY' } });
  expect(run.code).toBe(0);
  expect(run.stderr + run.stdout).toMatch(/billing_period: \(sensitive\) is not a known value/);
  expect(run.stderr + run.stdout).not.toContain('WEEKLY');
});

it("a kind's own checks read a value from the environment as (sensitive): no message quotes it", async () => {
  const configuration = { clip: { d: 2 }, post: { src: '${env.S}', other: '$nothere.url' } };
  const dir = testdir({
    'a.yaml': { kind: 'ActionConfiguration', name: 'a', spec: { annotation_type_id: 'at1', configuration } },
  });
  const run = await runCli(['validate', dir], { cwd: dir, env: { S: '$hidden.url' } });
  // The check still runs on the other values of the same action.
  expect(run.code).toBe(1);
  expect(run.stderr + run.stdout).toContain(
    'action post refers to $nothere, which is not an action of this configuration',
  );
  expect(run.stderr + run.stdout).not.toContain('hidden');
});
