// What a reviewer sees of each kind of change (issue 30): one plan per case, made by the real CLI against the real
// emulator, kept as golden files in text, Markdown and JSON (test/fixtures/golden/plans/CASE.{txt,md,json};
// `npx vitest run test/e2e/plan-goldens.test.ts -u` rewrites them, and the diff is reviewed like code).
// test/e2e/markdown-goldens.test.ts renders the Markdown ones as GitHub would and holds them to the JSON plan.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planChecksum } from '../../src/plan/saved.js';
import type { Plan } from '../../src/types.js';
import { against, runCli } from '../helpers/cli.js';
import type { Seed } from '../helpers/emulator.js';
import { HIDDEN_CHARACTERS, hostilePerTest } from '../helpers/hostile.js';

type Docs = object[];
interface GoldenCase {
  seed: Seed;
  /** documents applied first, so that the state records them */
  applied?: Docs;
  docs: Docs;
  env?: Record<string, string>;
  /** reads answered by a server in front of the emulator: GET path -> answer */
  live?: Record<string, object>;
  /** the plan saved, edited (its checksum made again) and printed by `tapedeck show` instead */
  edit?: (p: Plan) => void;
}

const SECRET = '7341';
const offer = (name: string, spec: object, extra: object = {}) => ({
  kind: 'Offer',
  name,
  ...extra,
  spec: { project_id: 'p', ...spec },
});
const price = (currency_code: string, units: string, nanos = 0, period = 'BILLING_PERIOD_MONTHLY') => ({
  price: { currency_code, units, nanos },
  billing_period: period,
});
/** A value with no place to wrap, longer than a pull-request comment is wide. */
const UNBROKEN = `https://cdn.example.com/${'a1b2c3d4e5'.repeat(16)}/poster.jpg`;
/** Long text per offer, so that thirteen of them pass GitHub's comment limit. */
const essay = (word: string, i: number) => Array.from({ length: 330 }, (_, n) => `${word}${i}-${n}`).join(' ');
const bulk = Array.from({ length: 13 }, (_, i) => i + 1);

const cases: Record<string, GoldenCase> = {
  // 1: the known parts of a value shown, the reference marked.
  references: {
    seed: { offers: [{ id: 'off_r', project_id: 'p', name: 'Pass', target: { event_ids: ['evt_old'] } }] },
    docs: [
      { kind: 'Event', name: 'final', spec: { project_id: 'p', title: 'Final' } },
      offer(
        'pass',
        { name: 'Pass for ${Event/final.id} at 100 EUR', target: { event_ids: ['${Event/final.id}', 'evt_extra'] } },
        { id: 'off_r' },
      ),
      offer('final-only', { name: 'Final only', target: { event_ids: ['${Event/final.id}'] } }),
    ],
  },
  // 2: only the sensitive leaf masked, in an update and a create; the other price reads 9.99 -> 14.99 EUR.
  sensitive: {
    seed: {
      offers: [
        {
          id: 'off_s',
          project_id: 'p',
          name: 'Premium',
          offer_prices: [price('EUR', '9', 990000000), price('USD', '12')],
        },
      ],
    },
    docs: [
      offer(
        'premium',
        { name: 'Premium', offer_prices: [price('EUR', '14', 990000000), price('USD', '${env.USD_UNITS}')] },
        { id: 'off_s' },
      ),
      offer('gift', { name: 'Gift', offer_prices: [price('EUR', '9', 990000000), price('USD', '${env.USD_UNITS}')] }),
    ],
    env: { USD_UNITS: SECRET },
  },
  // 3: a create's prices and prices added or removed as keyed rows; false as false; long values that can wrap.
  creates: {
    seed: {
      offers: [{ id: 'off_c', project_id: 'p', name: 'Basic', offer_prices: [price('EUR', '5'), price('USD', '6')] }],
      video_protection_rulesets: [{ id: 'vpr_1', project_id: 'p', name: 'Rules', drm: { enabled: false } }],
    },
    docs: [
      offer('new', {
        name: 'New offer',
        applies_to_all: false,
        localized_image_asset_id: { en: UNBROKEN },
        offer_prices: [
          price('EUR', '9', 990000000),
          price('EUR', '99', 0, 'BILLING_PERIOD_YEARLY'),
          price('GBP', '8', 500000000),
        ],
      }),
      offer(
        'basic',
        { name: 'Basic', offer_prices: [price('EUR', '5'), price('CHF', '7', 250000000)] },
        { id: 'off_c' },
      ),
      {
        kind: 'VideoProtectionRuleset',
        name: 'rules',
        id: 'vpr_1',
        spec: { project_id: 'p', name: 'Rules', drm: { enabled: true } },
      },
    ],
  },
  // 4: a project_id change is one replacement; a rename with an identity change too.
  replacements: {
    seed: {
      offers: [
        { id: 'off_a', project_id: 'p', name: 'A' },
        { id: 'off_b', project_id: 'p', name: 'B' },
      ],
    },
    applied: [offer('a', { name: 'A' }, { id: 'off_a' }), offer('b', { name: 'B' }, { id: 'off_b' })],
    docs: [
      offer('a', { name: 'A', project_id: 'p2' }),
      offer('gold', { name: 'B', project_id: 'p2' }, { moved_from: 'Offer/b' }),
    ],
  },
  // 5: a Markdown plan past the comment limit: updates left out, the release and the replacement kept, in
  // natural order (bulk-2 before bulk-10).
  'size-budget': {
    seed: {
      offers: [
        ...bulk.map((i) => ({
          id: `off_${i}`,
          project_id: 'p',
          name: `Bulk ${i}`,
          localized_description: { en: essay('old', i) },
        })),
        { id: 'off_gone', project_id: 'p', name: 'Gone' },
        { id: 'off_moving', project_id: 'p', name: 'Moving' },
      ],
    },
    applied: [
      ...bulk.map((i) => offer(`bulk-${i}`, { name: `Bulk ${i}` }, { id: `off_${i}` })),
      offer('gone', { name: 'Gone' }, { id: 'off_gone' }),
      offer('moving', { name: 'Moving' }, { id: 'off_moving' }),
    ],
    docs: [
      ...bulk.map((i) =>
        offer(`bulk-${i}`, { name: `Bulk ${i}`, localized_description: { en: essay('new', i) } }, { id: `off_${i}` }),
      ),
      offer('moving', { name: 'Moving', project_id: 'p2' }),
    ],
  },
  // 6: strings from a server and from documents cannot forge lines, colours or look-alikes.
  hostile: {
    seed: { offers: [{ id: 'off_h', project_id: 'p', name: 'x' }] },
    live: {
      '/monetization/offers/v1/off_h': {
        offer: {
          id: 'off_h',
          project_id: 'p',
          name: "It's basic",
          offer_prices: [price('EU\nR\u001b[31m', '1'), price('EUR', '2', 0, 'BILLING_\u202ePERIOD\u2028YEARLY')],
          localized_title: { 'en\u001b[2J': 'Title\r\nforged: line' },
        },
      },
    },
    docs: [
      offer(
        'hostile',
        {
          name: 'It`s basic\u200b\u200e\u200f\u202e|evil',
          offer_prices: [price('EUR', '3')],
          localized_title: { en: 'Line\u2028separator and ``code`` | pipe' },
        },
        { id: 'off_h' },
      ),
    ],
  },
  // 7: show counts the changes it verified, not the summary an edit put in the saved plan.
  'show-edited': {
    seed: { offers: [{ id: 'off_e', project_id: 'p', name: 'Old' }] },
    docs: [offer('edited', { name: 'New' }, { id: 'off_e' })],
    edit: (p) => {
      p.summary = { create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 1 };
    },
  },
};

const hostile = hostilePerTest();

/**
 * The parts of an output that differ between runs, made fixed: the port of the loopback server, the state's
 * lineage, the checksum over them, ids the emulator made up (by order of appearance).
 */
function fixed(text: string): string {
  const ids = new Map<string, string>();
  return text
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')
    .replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g,
      '00000000-0000-4000-8000-000000000000',
    )
    .replace(/("checksum": )"[0-9a-f]{64}"/g, '$1"CHECKSUM"')
    .replace(/\b([a-z]+_)[0-9a-f]{12}\b/g, (id, prefix: string) => {
      if (!ids.has(id)) ids.set(id, `${prefix}made${ids.size + 1}`);
      return ids.get(id)!;
    });
}

/** The case's outputs in each format (`plan`, or `show` of the saved plan as the case edits it), and the saved plan. */
async function outputs(c: GoldenCase): Promise<Record<'txt' | 'md' | 'json' | 'saved', string>> {
  const emu = await hostile.emulator(c.seed);
  let url = emu.url;
  if (c.live) {
    const live = c.live;
    const server = await hostile.server(emu.url, (req, res) => {
      const body = req.method === 'GET' ? live[req.url ?? ''] : undefined;
      if (!body) return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return true;
    });
    url = server.url;
  }
  const dir = hostile.dir({ 'a.yaml': c.applied ?? [] });
  const env = c.env ?? {};
  if (c.applied) expect((await runCli(['apply', ...against(url, dir), '--yes'], { cwd: dir, env })).code).toBe(0);
  writeFileSync(join(dir, 'a.yaml'), testdirText(c.docs));
  const run = async (args: string[]) => {
    const r = await runCli(args, { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    return fixed(r.stdout);
  };
  await run(['plan', ...against(url, dir), '--out', 'plan.json']);
  if (c.edit) {
    const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Plan;
    c.edit(plan);
    plan.checksum = planChecksum(plan);
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan, null, 2));
  }
  const saved = readFileSync(join(dir, 'plan.json'), 'utf8');
  const [command, ...more] = c.edit ? ['show', 'plan.json'] : ['plan', ...against(url, dir)];
  const formats = { txt: 'text', md: 'markdown', json: 'json' } as const;
  const out = { txt: '', md: '', json: '', saved };
  for (const [ext, format] of Object.entries(formats))
    out[ext as keyof typeof formats] = await run([command, ...more, '--format', format]);
  return out;
}

/** Documents as one YAML file, as testdir writes them. */
function testdirText(docs: Docs): string {
  return readFileSync(join(hostile.dir({ 'x.yaml': docs }), 'x.yaml'), 'utf8');
}

describe('plan goldens (issue 30)', () => {
  it.each(Object.keys(cases))('%s: text, Markdown and JSON match their golden files', async (name) => {
    const out = await outputs(cases[name]);
    for (const [what, text] of Object.entries(out)) {
      expect(text, what).not.toContain(SECRET);
      // Nothing forged, nothing invisible, in every format: the machine ones and the saved plan too (issue 30 item 6).
      expect(text.match(HIDDEN_CHARACTERS), what).toBeNull();
    }
    for (const ext of ['txt', 'md', 'json'] as const)
      await expect(out[ext]).toMatchFileSnapshot(`../fixtures/golden/plans/${name}.${ext}`);
  });
});
