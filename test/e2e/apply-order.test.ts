// The order apply writes in, from the emulator's call log: a referenced resource is written (and answered) before
// the document that refers to it is sent, no write is sent twice, and a plan of an applied setup only reads.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Call } from '../../src/emulator/calls.js';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const seed = {
  events: [{ id: 'tpl', project_id: 'p', title: 'Template' }],
  offers: [{ id: 'o1', project_id: 'p', name: 'Basic' }],
};

// Every referrer comes before what it refers to, so file order alone would write them the wrong way round.
const documents = [
  { kind: 'Offer', name: 'basic', id: 'o1', spec: { billing_partner_offer_id: '${Offer/upsell.id}' } },
  {
    kind: 'Offer',
    name: 'upsell',
    spec: { project_id: 'p', name: 'Upsell', billing_partner_offer_id: '${Offer/pass.id}' },
  },
  {
    kind: 'Policy',
    name: 'final-access',
    spec: {
      resource_key: '${Event/final.id}/p/event',
      policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] },
    },
  },
  {
    kind: 'Offer',
    name: 'pass',
    spec: { project_id: 'p', name: 'Pass', target: { event_ids: ['${Event/final.id}', '${Event/replay.id}'] } },
  },
  { kind: 'Event', name: 'replay', duplicate_from: '${Event/final.id}', spec: { title: '%@ (replay)' } },
  { kind: 'Event', name: 'final', duplicate_from: 'tpl', spec: { title: 'The final' } },
  {
    kind: 'VideoProtectionRuleset',
    name: 'geo',
    spec: { project_id: 'p', name: 'Rules of ${StreamingConfiguration/ladder.id}' },
  },
  {
    kind: 'StreamingConfiguration',
    name: 'ladder',
    spec: { project_id: 'p', name: 'Ladder', type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS' },
  },
];

/** What each document refers to, read off the documents above (not taken from the plan under test). */
const references: Record<string, string[]> = {
  'Offer/basic': ['Offer/upsell'],
  'Offer/upsell': ['Offer/pass'],
  'Policy/final-access': ['Event/final'],
  'Offer/pass': ['Event/final', 'Event/replay'],
  'Event/replay': ['Event/final'],
  'VideoProtectionRuleset/geo': ['StreamingConfiguration/ladder'],
};

/** The one write each document should cost: method and path, and for a create the id it made. */
function expectedWrites(id: Record<string, string>): Record<string, { line: string; created?: string }> {
  const made = (address: string, line: string) => ({ line, created: id[address] });
  return {
    'Event/final': made('Event/final', 'POST /cms/events/v1/tpl/duplicate'),
    'Event/replay': made('Event/replay', `POST /cms/events/v1/${id['Event/final']}/duplicate`),
    'StreamingConfiguration/ladder': made('StreamingConfiguration/ladder', 'POST /streaming/configurations/v1'),
    'VideoProtectionRuleset/geo': made('VideoProtectionRuleset/geo', 'POST /streaming/video_protection/v1/rulesets'),
    'Offer/pass': made('Offer/pass', 'POST /monetization/offers/v1'),
    'Offer/upsell': made('Offer/upsell', 'POST /monetization/offers/v1'),
    'Offer/basic': { line: 'PATCH /monetization/offers/v1/o1' },
    'Policy/final-access': { line: `PUT /iam/auth/v1/policies/${id['Event/final']}/p/event` },
  };
}

const line = (c: Call) => `${c.method} ${c.path}`;

async function apply(dir: string, ...extra: string[]) {
  const run = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--json', ...extra], { cwd: dir });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { results: { address: string; action: string; id?: string; outcome: string }[] };
}

describe('the order apply writes in, as the emulator received it', () => {
  it.each([1, 8])(
    '--concurrency %i: referenced before referrer, each write once, then a plan only reads',
    async (concurrency) => {
      // A little latency keeps requests in flight together, so a write sent too early would overtake its target.
      emu = await emulator(seed, { latencyMs: 3 });
      const dir = testdir({ 'a.yaml': documents });
      const result = await apply(dir, '--concurrency', String(concurrency));
      expect(result.results.map((r) => r.outcome)).toEqual(Array(documents.length).fill('applied'));
      const id = Object.fromEntries(result.results.filter((r) => r.id).map((r) => [r.address, r.id!]));

      // Each write the log holds is the one write of exactly one document, and every document got its write.
      const writes = emu.writes();
      const expected = expectedWrites(id);
      const at = new Map<string, number>();
      writes.forEach((w, i) => {
        const owners = Object.keys(expected).filter(
          (a) => expected[a].line === line(w) && expected[a].created === w.created,
        );
        expect(owners, `${line(w)} (${w.created ?? 'no id made'}) is the write of one document`).toHaveLength(1);
        expect(at.has(owners[0]), `${owners[0]} written twice`).toBe(false);
        at.set(owners[0], i);
      });
      expect([...at.keys()].sort()).toEqual(Object.keys(expected).sort());
      expect(writes.map((w) => [line(w), w.status, w.stored])).toEqual(writes.map((w) => [line(w), 200, true]));

      // A referrer is sent only once what it refers to was written and answered (its id is in the referrer's request).
      for (const [referrer, targets] of Object.entries(references)) {
        const sent = writes[at.get(referrer)!];
        for (const target of targets) {
          const written = writes[at.get(target)!];
          expect(
            written.answered!,
            `${referrer} (${line(sent)}) sent before ${target} (${line(written)}) was answered`,
          ).toBeLessThan(sent.seq);
        }
      }

      // Applied, the same documents plan to nothing, and neither a plan nor another apply sends a write.
      emu.clearCalls();
      const plan = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
      expect(JSON.parse(plan.stdout).summary).toEqual({
        create: 0,
        update: 0,
        replace: 0,
        move: 0,
        release: 0,
        restore: 0,
        noop: documents.length,
      });
      expect(emu.calls().length).toBeGreaterThan(0);
      expect(
        emu
          .calls()
          .filter((c) => c.method !== 'GET')
          .map(line),
      ).toEqual([]);
      await apply(dir, '--concurrency', String(concurrency));
      expect(emu.writes().map(line)).toEqual([]);
    },
  );
});

describe('what apply reports and records', () => {
  it("lists each written or released change in the plan's order, and records every unchanged one in the state", async () => {
    emu = await emulator({
      offers: [
        { id: 'o1', project_id: 'p', name: 'One' },
        { id: 'o2', project_id: 'p', name: 'Two' },
        { id: 'o3', project_id: 'p', name: 'Three' },
      ],
    });
    const offer = (name: string, id: string, title: string) => ({
      kind: 'Offer',
      name,
      id,
      spec: { project_id: 'p', name: title },
    });
    const dir = testdir({
      'a.yaml': [offer('one', 'o1', 'One'), offer('two', 'o2', 'Two'), offer('three', 'o3', 'Three')],
    });
    await apply(dir);
    // Offer/three leaves the documents (released: the entry is marked released, the offer stays), Offer/two changes, the rest stays.
    writeFileSync(
      join(dir, 'a.yaml'),
      [offer('one', 'o1', 'One'), offer('two', 'o2', 'Two, renamed')].map((d) => stringify(d)).join('---\n'),
    );
    const plan = JSON.parse((await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir })).stdout) as {
      changes: { address: string; action: string }[];
    };
    const planned = plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.action} ${c.address}`);
    // The release comes last in the plan, but it is done at once while the update waits for its answer.
    expect(planned).toEqual(['update Offer/two', 'release Offer/three']);
    const result = await apply(dir);
    expect(result.results.map((r) => `${r.action} ${r.address}`)).toEqual(planned);
    const state = JSON.parse(readFileSync(join(dir, '.tapedeck', 'default.state.json'), 'utf8')) as {
      resources: Record<string, { id: string; fields: object }>;
    };
    expect(Object.keys(state.resources).sort()).toEqual(['Offer/one', 'Offer/three', 'Offer/two']);
    expect(state.resources['Offer/three']).toMatchObject({ id: 'o3', released_at: expect.any(String) });
    expect(state.resources['Offer/one']).toEqual({
      kind: 'Offer',
      id: 'o1',
      fields: { project_id: 'p', name: 'One' },
      digest: expect.any(String),
    });
    expect(state.resources['Offer/two'].fields).toEqual({ project_id: 'p', name: 'Two, renamed' });
  });
});
