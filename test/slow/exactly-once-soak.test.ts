// Exactly-once under everything at once: 200 creates (twins among them, and look-alikes made by hand before), answers
// lost after the write, lists failing half the time, applies killed with SIGKILL at random moments, rerun until
// converged. Then: zero duplicates, zero wrong adoptions, every resource bound to exactly one address.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { seededRandom, type Emulator } from '../../src/emulator/server.js';
import { finished, runBin, startBin } from '../helpers/bin.js';
import { testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';

let emu: Emulator | undefined;
let proxy: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await proxy?.close();
  await emu?.close();
  emu = proxy = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const P = { project_id: 'p' };

/** 200 documents: 40 offers in 10 groups of identical twins, 60 other offers, 40 rulesets, 20 configurations, 20 events. */
function documents() {
  const docs: object[] = [];
  // Twins say allow_duplicate: each group has a look-alike made by hand, which would otherwise stop the plan.
  for (let i = 0; i < 40; i++) {
    docs.push({
      kind: 'Offer',
      name: `twin-${i}`,
      allow_duplicate: true,
      spec: { ...P, name: `Promo ${i % 10}`, priority: i % 10 },
    });
  }
  for (let i = 0; i < 60; i++) docs.push({ kind: 'Offer', name: `offer-${i}`, spec: { ...P, name: `Offer ${i}` } });
  for (let i = 0; i < 40; i++)
    docs.push({ kind: 'VideoProtectionRuleset', name: `rules-${i}`, spec: { ...P, name: `Rules ${i}` } });
  for (let i = 0; i < 20; i++) {
    docs.push({
      kind: 'StreamingConfiguration',
      name: `config-${i}`,
      spec: { ...P, name: `Config ${i}`, type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS' },
    });
  }
  for (let i = 0; i < 20; i++)
    docs.push({ kind: 'Event', name: `event-${i}`, duplicate_from: 'tpl', spec: { title: `Match ${i}` } });
  return docs;
}

it('200 creates with lost answers, failing lists, twins and SIGKILLs converge: no duplicate, no wrong adoption', async () => {
  // One look-alike of each twin group was made by hand before: it must never be taken for one of ours.
  const byHand = Array.from({ length: 10 }, (_, g) => ({
    id: `off_by_hand_${g}`,
    ...P,
    name: `Promo ${g}`,
    priority: g,
  }));
  emu = await emulator({ offers: byHand, events: [{ id: 'tpl', ...P, title: 'Template' }] }, { latencyMs: 2 });
  const random = seededRandom(14);
  const faults = { lost: 0, lists: 0 };
  let faulty = true;
  proxy = await faultyProxy(emu.url, (req) => {
    if (!faulty) return undefined;
    if (req.method === 'POST' && random() < 0.3) return (void faults.lost++, 'drop_after');
    const list = req.method === 'GET' && /\/v1(\/rulesets)?\?/.test(req.url ?? '');
    if (list && random() < 0.5) return (void faults.lists++, { status: 503, forward: false });
    return undefined;
  });
  const dir = testdir({
    'all.yaml': documents()
      .map((d) => stringify(d))
      .join('---\n'),
  });
  const stateFile = join(dir, '.tapedeck/default.state.json');
  let runs = 0;
  let kills = 0;
  for (; runs < 40; runs++) {
    const victim = startBin(['apply', dir, '--base-url', proxy.url, '--yes', '--retries', '6'], dir);
    const exited = finished(victim);
    if (runs < 12 && random() < 0.6) {
      await sleep(150 + Math.floor(random() * 900));
      victim.kill('SIGKILL');
    }
    const { code } = await exited;
    if (code === -1) kills++;
    // Converged: the platform, asked without faults, shows no change left.
    faulty = false;
    const plan = await runBin(['plan', dir, '--base-url', proxy.url, '--detailed-exitcode'], dir);
    faulty = true;
    if (code === 0 && plan.code === 0) break;
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8')).resources as Record<
    string,
    { id?: string; pending_since?: string }
  >;
  const live = (col: string) => [...emu!.store.collections.get(col)!.values()];
  const ids = Object.values(state).map((e) => e.id);
  // Every document bound, each to its own resource, none to a look-alike made by hand.
  expect(ids.every((id) => typeof id === 'string')).toBe(true);
  const seen = new Map<string, string[]>();
  for (const [a, e] of Object.entries(state)) seen.set(e.id!, [...(seen.get(e.id!) ?? []), a]);
  expect([...seen.values()].filter((as) => as.length > 1)).toEqual([]);
  expect(ids.filter((id) => id!.startsWith('off_by_hand'))).toEqual([]);
  // Zero duplicates: the platform holds exactly what was declared (plus what was there before).
  expect(live('offers')).toHaveLength(100 + 10);
  for (let g = 0; g < 10; g++) expect(live('offers').filter((o) => o.name === `Promo ${g}`)).toHaveLength(5);
  expect(live('video_protection_rulesets')).toHaveLength(40);
  expect(live('configurations')).toHaveLength(20);
  expect(live('events')).toHaveLength(21);
  // Every created resource is bound to exactly one address.
  const created = [
    ...live('offers'),
    ...live('video_protection_rulesets'),
    ...live('configurations'),
    ...live('events'),
  ]
    .map((r) => String(r.id))
    .filter((id) => !id.startsWith('off_by_hand') && id !== 'tpl');
  expect(created.sort()).toEqual([...(ids as string[])].sort());
  expect(faults.lost).toBeGreaterThan(30);
  expect(faults.lists).toBeGreaterThan(30);
  writeFileSync(join(dir, 'figures.json'), JSON.stringify({ runs: runs + 1, kills, ...faults }));
  console.log(
    `exactly-once soak: converged after ${runs + 1} runs (${kills} killed), ${faults.lost} create answers lost, ${faults.lists} list reads failed`,
  );
});
