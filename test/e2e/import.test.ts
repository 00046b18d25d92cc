// `tapedeck import ADDRESS ID`: an existing resource bound to a document's address in the state (Terraform's import).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const seed = {
  offers: [
    { id: 'off_1', project_id: 'p', name: 'Premium', priority: '1' },
    { id: 'off_2', project_id: 'p', name: 'Basic' },
  ],
  video_protection_rulesets: [{ id: 'vpr_1', project_id: 'p', name: 'Geo' }],
};
const offer = (name: string, title: string, project = 'p') => ({
  kind: 'Offer',
  name,
  spec: { project_id: project, name: title, priority: 3 },
});
const statePath = (dir: string) => join(dir, '.tapedeck/default.state.json');
const stateText = (dir: string) => (existsSync(statePath(dir)) ? readFileSync(statePath(dir), 'utf8') : '');
const imp = (dir: string, address: string, id: string) =>
  runCli(['import', address, id, ...against(emu!.url, dir)], { cwd: dir });

describe('tapedeck import', () => {
  it('binds the live resource to the address: the next plan shows only the real differences, and nothing is created', async () => {
    emu = await emulator(seed);
    const dir = testdir({ 'a.yaml': [offer('premium', 'Premium')] });
    expect((await runCli(['plan', ...against(emu.url, dir)], { cwd: dir })).stderr).toContain(
      'tapedeck import Offer/premium off_1',
    );
    const run = await imp(dir, 'Offer/premium', 'off_1');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Imported Offer off_1 as Offer/premium');
    expect(emu.writes()).toEqual([]);
    expect(JSON.parse(stateText(dir)).resources['Offer/premium']).toEqual({ kind: 'Offer', id: 'off_1' });
    const plan = JSON.parse((await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir })).stdout);
    expect(plan.summary).toMatchObject({ create: 0, update: 1 });
    expect(plan.changes).toEqual([
      expect.objectContaining({ address: 'Offer/premium', action: 'update', id: 'off_1', update_mask: ['priority'] }),
    ]);
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect(emu.store.collections.get('offers')!.size).toBe(2);
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it.each([
    ['an id the platform does not have', 'Offer/premium', 'off_nope', /the platform has no Offer off_nope/],
    [
      'an id of another kind',
      'Offer/premium',
      'vpr_1',
      /the platform has no Offer vpr_1 \(an id of another kind is not one\)/,
    ],
    ['an address no document declares', 'Offer/gold', 'off_1', /Offer\/gold: no document declares it/],
    [
      'a resource of another project than the document',
      'Offer/elsewhere',
      'off_2',
      /Offer\/elsewhere: Offer off_2 has project_id "p", the document says "q": that is another resource/,
    ],
    ['not an address', 'premium', 'off_1', /premium: no document declares it/],
  ])('refuses %s: exit 1, the state unchanged, nothing written', async (_, address, id, message) => {
    emu = await emulator(seed);
    const dir = testdir({ 'a.yaml': [offer('premium', 'Premium'), offer('elsewhere', 'Basic', 'q')] });
    const run = await imp(dir, address, id);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(stateText(dir)).toBe('');
    expect(emu.writes()).toEqual([]);
  });

  it('refuses an id another address already claims, and an address that already has one', async () => {
    emu = await emulator(seed);
    const dir = testdir({ 'a.yaml': [offer('premium', 'Premium'), offer('copy', 'Premium'), offer('basic', 'Basic')] });
    expect((await imp(dir, 'Offer/premium', 'off_1')).code).toBe(0);
    const before = stateText(dir);
    const claimed = await imp(dir, 'Offer/copy', 'off_1');
    expect(claimed.code).toBe(1);
    expect(claimed.stderr).toContain('Offer off_1 is already managed as Offer/premium');
    const taken = await imp(dir, 'Offer/premium', 'off_2');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('Offer/premium is in the state already (off_1)');
    expect(stateText(dir)).toBe(before);
  });

  it('takes the state lock: refused while an apply holds it', async () => {
    emu = await emulator(seed);
    const dir = testdir({
      'a.yaml': [offer('premium', 'Premium')],
      '.tapedeck/default.state.json.lock': JSON.stringify({
        host: 'elsewhere',
        pid: 1,
        since: new Date().toISOString(),
      }),
    });
    const run = await imp(dir, 'Offer/premium', 'off_1');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/locked/);
    expect(stateText(dir)).toBe('');
  });
});
