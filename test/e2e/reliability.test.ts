// No duplicate creates, no lost updates: lost answers and injected faults at scale. SIGKILL at random moments is
// test/slow/crash.test.ts (npm run test:slow).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';
import { useVirtualClock } from '../helpers/clock.js';

// Retry waits, Retry-After pauses and rate buckets on the CLI's and the emulator's shared virtual clock.
useVirtualClock();

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const offers = () => [...emu!.store.collections.get('offers')!.values()];

describe('creates are never duplicated', () => {
  it.each([
    ['drop_after' as const, 'the create took effect but its answer was lost: found and adopted', 1],
    ['drop_before' as const, 'the create never arrived: looked up, not found, sent again', 2],
  ])('%s: %s', async (fault, _, sent) => {
    emu = await emulator();
    let posts = 0;
    const proxy = await faultyProxy(emu.url, (req) => (req.method === 'POST' && posts++ === 0 ? fault : undefined));
    const dir = testdir({ 'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: 'Only one' } } });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes', '--json'], { cwd: dir });
    await proxy.close();
    expect(run.code).toBe(0);
    expect(offers()).toHaveLength(1);
    const [result] = JSON.parse(run.stdout).results;
    expect(result).toMatchObject({ outcome: 'applied', id: offers()[0].id });
    expect(posts).toBe(sent);
    const state = JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
    expect(state.resources['Offer/o']).toMatchObject({ id: offers()[0].id });
    expect(state.resources['Offer/o'].pending_since).toBeUndefined();
  });

  it('a duplicated event whose answer was lost is found by what the create carried', async () => {
    emu = await emulator({ events: [{ id: 'tpl', project_id: 'p', title: 'Template' }] });
    let posts = 0;
    const proxy = await faultyProxy(emu.url, (req) =>
      req.method === 'POST' && posts++ === 0 ? 'drop_after' : undefined,
    );
    const dir = testdir({
      'a.yaml': { kind: 'Event', name: 'copy', duplicate_from: 'tpl', spec: { title: '%@ (copy)' } },
    });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(emu.store.collections.get('events')!.size).toBe(2);
    // The same platform (the state is bound to the origin it was applied to), now without faults.
    expect((await runCli(['plan', ...against(proxy.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
    await proxy.close();
  });

  it('a pending create left by an earlier run is looked up by the next plan, not sent again', async () => {
    emu = await emulator({ offers: [{ id: 'made-earlier', project_id: 'p', name: 'Only one' }] });
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: 'Only one' } },
      '.tapedeck/default.state.json': JSON.stringify({
        format_version: 1,
        resources: { 'Offer/o': { kind: 'Offer', pending_since: '2026-01-01T00:00:00Z' } },
      }),
    });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(JSON.parse(plan.stdout).changes[0]).toMatchObject({ action: 'noop', id: 'made-earlier' });
  });

  it('a pending create of a kind that cannot be looked up stops the plan with what to do', async () => {
    emu = await emulator();
    const dir = testdir({
      'a.yaml': { kind: 'StandingPhase', name: 's', spec: { project_id: 'p' } },
      '.tapedeck/default.state.json': JSON.stringify({
        format_version: 1,
        resources: { 'StandingPhase/s': { kind: 'StandingPhase', pending_since: '2026-01-01T00:00:00Z' } },
      }),
    });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /StandingPhase\/s: a create sent at 2026-01-01T00:00:00Z may have taken effect.*tapedeck state forget StandingPhase\/s/,
    );
  });
});

describe('at scale under injected faults', () => {
  it('500 changes at fault rate 0.2 converge within 3 runs: no duplicates, no lost updates, truthful output', async () => {
    const vods = Array.from({ length: 250 }, (_, i) => ({ id: `vod${i}`, project_id: 'p', name: 'Old' }));
    emu = await emulator(
      { vods, events: [{ id: 'tpl', project_id: 'p', title: 'T' }] },
      { faultRate: 0.2, faultSeed: 2026, retryAfter: 0 },
    );
    const documents = [
      ...vods.map((v, i) => ({ kind: 'Vod', name: `v${i}`, id: v.id, spec: { name: `New ${i}` } })),
      ...Array.from({ length: 150 }, (_, i) => ({
        kind: 'Offer',
        name: `o${i}`,
        spec: { project_id: 'p', name: `Offer ${i}`, priority: i },
      })),
      ...Array.from({ length: 50 }, (_, i) => ({
        kind: 'StreamingConfiguration',
        name: `c${i}`,
        spec: { project_id: 'p', name: `Config ${i}`, type: 'CONFIGURATION_TYPE_AUTOMATED_TAGGING' },
      })),
      ...Array.from({ length: 50 }, (_, i) => ({
        kind: 'Event',
        name: `e${i}`,
        duplicate_from: 'tpl',
        spec: { title: `%@ ${i}` },
      })),
    ];
    const dir = testdir({ 'all.yaml': documents });
    const applied: { address: string; id: string }[] = [];
    let runs = 0;
    let code = 1;
    while (code !== 0 && runs < 3) {
      runs++;
      const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json', '--concurrency', '16'], {
        cwd: dir,
      });
      code = run.code;
      // No results: the plan itself failed (a read exhausted its retries: the error's JSON, or nothing on stdout)
      // and nothing was written. The faults' order follows the requests' timing, so this happens in some runs.
      const results: { address: string; id: string; outcome: string }[] =
        (run.stdout ? JSON.parse(run.stdout).results : undefined) ?? [];
      applied.push(...results.filter((r) => r.outcome === 'applied'));
    }
    expect(code).toBe(0);
    expect(runs).toBeLessThanOrEqual(3);
    // Truthful: everything the output called applied, in any run, is on the platform.
    const collection = { Vod: 'vods', Offer: 'offers', StreamingConfiguration: 'configurations', Event: 'events' };
    const missing = applied.filter(
      (r) => !emu!.store.collections.get(collection[r.address.split('/')[0] as 'Vod'])!.has(r.id),
    );
    expect(missing).toEqual([]);
    expect(applied.length).toBeGreaterThan(0);
    const names = (col: string) => [...emu!.store.collections.get(col)!.values()].map((r) => String(r.name ?? r.title));
    expect(names('offers').sort()).toEqual(Array.from({ length: 150 }, (_, i) => `Offer ${i}`).sort());
    expect(names('configurations')).toHaveLength(50);
    expect(new Set(names('configurations')).size).toBe(50);
    expect(names('events')).toHaveLength(51);
    expect(names('vods')).toEqual(vods.map((_, i) => `New ${i}`));
    expect(Object.values(emu.stats.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(50);
  }, 120_000);
});
