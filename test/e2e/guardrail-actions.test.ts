// Every write is seen by the rules that guard its fields (issue 41): each example of examples/rules/ against a plan of
// each action that can carry what it protects — create, update, replace (an identity field changed: a new resource,
// the old one released), restore (a released resource taken back, PATCHed) and release — made for real: applied
// against the emulator, then the documents changed and planned.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

const examples = resolve(import.meta.dirname, '../../examples/rules');
let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const price = (currency: string, units: string) => ({
  price: { currency_code: currency, units },
  billing_period: 'BILLING_PERIOD_MONTHLY',
});
const doc = (kind: string, name: string, spec: object) => ({ kind, name, spec: { project_id: 'p', ...spec } });
/** In every configuration, unchanged throughout: a release has a document left to plan beside it. */
const filler = doc('Offer', 'filler', { name: 'Filler' });

/** What each example guards: the document as applied, and as changed so that the rule must deny. */
const guarded: Record<string, { before: object; after: object }> = {
  'no-big-price-drop': {
    before: doc('Offer', 'premium', { name: 'Premium', offer_prices: [price('EUR', '10')] }),
    after: doc('Offer', 'premium', { name: 'Premium', offer_prices: [price('EUR', '4')] }),
  },
  'keep-geo-restrictions': {
    before: doc('VideoProtectionRuleset', 'geo', {
      name: 'Geo',
      geo_restrictions_disallow: { country_codes: ['US', 'CN'] },
    }),
    after: doc('VideoProtectionRuleset', 'geo', { name: 'Geo', geo_restrictions_disallow: { country_codes: ['US'] } }),
  },
  'published-offers-have-eur': {
    before: doc('Offer', 'launch', { name: 'Launch', offer_prices: [price('USD', '9')] }),
    after: doc('Offer', 'launch', {
      name: 'Launch',
      visibility: 'VISIBILITY_PUBLISHED',
      offer_prices: [price('USD', '9')],
    }),
  },
  'event-start-not-in-past': {
    before: doc('Event', 'final', { title: 'Final', start_time: '2030-01-01T18:00:00Z' }),
    after: doc('Event', 'final', { title: 'Final', start_time: '2020-06-01T18:00:00Z' }),
  },
};

/** Another project: another resource, so the document's change is a replace. */
const elsewhere = (d: object) => {
  const x = structuredClone(d) as { spec: Record<string, unknown> };
  x.spec.project_id = 'q';
  return x;
};

type Action = 'create' | 'update' | 'replace' | 'restore' | 'release';
/** The documents applied first (each list one apply), and those planned, for a change of `action`. */
function steps(action: Action, g: { before: object; after: object }): { applied: object[][]; planned: object[] } {
  switch (action) {
    case 'create':
      return { applied: [], planned: [g.after] };
    case 'update':
      return { applied: [[g.before]], planned: [g.after] };
    case 'replace':
      return { applied: [[g.before]], planned: [elsewhere(g.after)] };
    case 'restore':
      return { applied: [[g.before], []], planned: [g.after] };
    case 'release':
      return { applied: [[g.before]], planned: [] };
  }
}

const write = (dir: string, docs: object[]) =>
  writeFileSync(join(dir, 'docs.yaml'), [filler, ...docs].map((d) => stringify(d)).join('---\n'));

/** The plan (JSON) of `action` with the example's rules, and its exit code (--detailed-exitcode). */
async function planOf(example: string, action: Action, g: { before: object; after: object }, env: string[] = []) {
  emu = await emulator({});
  const project: Record<string, object> = env.length
    ? { 'tapedeck.yaml': { version: 1, environments: { production: {} } } }
    : {};
  const dir = testdir({ 'docs.yaml': [filler], ...project });
  const { applied, planned } = steps(action, g);
  for (const docs of applied) {
    write(dir, docs);
    const run = await runCli(['apply', ...against(emu.url, dir), ...env, '--yes'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
  }
  mkdirSync(join(dir, 'rules'));
  copyFileSync(join(examples, `${example}.yaml`), join(dir, 'rules', `${example}.yaml`));
  write(dir, planned);
  const run = await runCli(['plan', ...against(emu.url, dir), ...env, '--json', '--detailed-exitcode'], { cwd: dir });
  const plan = JSON.parse(run.stdout);
  const address = (g.before as { kind: string; name: string }).kind + '/' + (g.before as { name: string }).name;
  const change = plan.changes.find((c: { address: string }) => c.address === address);
  const denied = (plan.rules.results as { rule: string; address: string; outcome: string }[])
    .filter((r) => r.address === address)
    .map((r) => `${r.rule} ${r.outcome}`);
  return { code: run.code, action: change?.action, denied };
}

const writes: Action[] = ['create', 'update', 'replace', 'restore'];

describe('each example guards every write of what it protects', () => {
  const cases = Object.keys(guarded).flatMap((example) =>
    [...writes, 'release' as const].map((action) => [example, action] as const),
  );
  it.each(cases)('%s: %s', async (example, action) => {
    const g = guarded[example];
    const got = await planOf(example, action, g);
    expect(got.action).toBe(action);
    // A create has no value before it to compare with (a price drop, a lifted restriction): it passes those two.
    const before = example === 'no-big-price-drop' || example === 'keep-geo-restrictions';
    const denies = action !== 'release' && !(action === 'create' && before);
    expect(got.denied).toEqual(denies ? [`${example} failed`] : []);
    expect(got.code).toBe(denies ? 1 : 2);
  });

  it.each([...writes, 'release' as const])(
    'no-release-in-production: %s (denied when it lets a resource go)',
    async (action) => {
      const g = guarded['keep-geo-restrictions'];
      const got = await planOf('no-release-in-production', action, g, ['--env', 'production']);
      expect(got.action).toBe(action);
      const denies = action === 'release' || action === 'replace';
      expect(got.denied).toEqual(denies ? ['no-release-in-production failed'] : []);
    },
  );
});
