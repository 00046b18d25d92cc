// plan --refresh changed and apply --plan against what could make them miss a change or write the wrong thing: a
// default held live behind an unchanged document, a saved plan whose unwritten changes were edited, a replaced
// resource that others refer to (issue 33's attacks; test/e2e/refresh-changed.test.ts has the guarantees).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { planChecksum } from '../../src/plan/saved.js';
import type { Plan } from '../../src/types.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';

let emu: Emulator;
let dir: string;
const write = (list: object[]) => writeFileSync(join(dir, 'all.yaml'), list.map((d) => stringify(d)).join('---\n'));
const cli = (args: string[]) => runCli(args, { cwd: dir });
const stateOf = () => JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
const plan = async (...flags: string[]) => {
  const run = await cli(['plan', ...against(emu.url, dir), '--json', ...flags]);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Plan;
};
const actions = (p: Plan) => Object.fromEntries(p.changes.map((c) => [c.address, c.action]));
const apply = async (...flags: string[]) => {
  const run = await cli(['apply', ...against(emu.url, dir), '--yes', ...flags]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
};

beforeEach(async () => {
  emu = await emulator({ offers: [{ id: 'off-x', project_id: 'p', name: 'X' }] });
  dir = testdir({});
});
afterEach(() => emu.close());

describe('plan --refresh changed', () => {
  it('a document taking the default reads those that may hold it: a default moved behind an unchanged one is handed over first', async () => {
    const ladder = (name: string, isDefault: boolean) => ({
      kind: 'StreamingConfiguration',
      name,
      spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault },
    });
    write([ladder('one', false)]);
    await apply();
    // Made the default on the platform: its document (default: false) is unchanged since the last apply.
    const id = stateOf().resources['StreamingConfiguration/one'].id as string;
    await call(emu, 'PATCH', `/streaming/configurations/v1/${id}`, {
      configuration_id: id,
      configuration: { default: true },
      update_mask: 'default',
    });
    write([ladder('one', false), ladder('two', true)]);
    const p = await plan('--refresh', 'changed');
    expect(actions(p)).toEqual({ 'StreamingConfiguration/one': 'update', 'StreamingConfiguration/two': 'create' });
    expect(p.changes.find((c) => c.address === 'StreamingConfiguration/two')!.requires).toEqual([
      'StreamingConfiguration/one',
    ]);
    await apply('--refresh', 'changed');
    const live = [...emu.store.collections.get('configurations')!.values()];
    expect(Object.fromEntries(live.map((c) => [c.name, c.default]))).toEqual({ one: false, two: true });
  });

  it.each([
    ['a full plan', [], false],
    ['--refresh changed', ['--refresh', 'changed'], false],
    ['apply --plan of a --refresh changed plan', ['--refresh', 'changed'], true],
  ])(
    '%s: a resource replaced (another project) is referred to by its new id, in the same apply',
    async (_, flags: string[], saved: boolean) => {
      const docs = (project: string) => [
        { kind: 'Offer', name: 'a', spec: { project_id: project, name: 'A' } },
        { kind: 'Offer', name: 'c', spec: { project_id: 'p', name: 'C', billing_partner_offer_id: '${Offer/a.id}' } },
      ];
      write(docs('p'));
      await apply();
      const old = stateOf().resources['Offer/a'].id as string;
      write(docs('p2'));
      const p = await plan(...flags);
      expect(actions(p)).toEqual({ 'Offer/a': 'replace', 'Offer/c': 'update' });
      expect(p.changes.find((c) => c.address === 'Offer/c')!.depends_on).toEqual(['Offer/a']);
      if (saved) {
        const out = join(dir, 'plan.json');
        expect((await cli(['plan', ...against(emu.url, dir), '--out', out, ...flags])).code).toBe(0);
        const run = await cli(['apply', '--plan', out, '--base-url', emu.url, '--yes']);
        expect(run.stderr).toBe('');
      } else await apply(...flags);
      const now = stateOf().resources['Offer/a'].id as string;
      expect(now).not.toBe(old);
      const c = emu.store.collections.get('offers')!.get(stateOf().resources['Offer/c'].id)!;
      expect(c.billing_partner_offer_id).toBe(now);
      expect((await plan()).summary).toMatchObject({ create: 0, update: 0, replace: 0, noop: 2 });
    },
  );
  it.each([
    ['--refresh changed', ['--refresh', 'changed'], false],
    ['apply --plan of a full plan', [], true],
    ['apply --plan of a --refresh changed plan', ['--refresh', 'changed'], true],
  ])(
    '--recreate-missing, %s: a document created again lends no old id: those referring to it are updated',
    async (_, flags: string[], saved: boolean) => {
      const docs = (name: string) => [
        { kind: 'Offer', name: 'a', spec: { project_id: 'p', name } },
        { kind: 'Offer', name: 'c', spec: { project_id: 'p', name: 'C', billing_partner_offer_id: '${Offer/a.id}' } },
      ];
      write(docs('A'));
      await apply();
      emu.store.collections.get('offers')!.delete(stateOf().resources['Offer/a'].id);
      write(docs('A2'));
      const p = await plan(...flags, '--recreate-missing');
      expect(actions(p)).toEqual({ 'Offer/a': 'create', 'Offer/c': 'update' });
      if (saved) {
        const out = join(dir, 'plan.json');
        expect((await cli(['plan', ...against(emu.url, dir), '--out', out, '--recreate-missing', ...flags])).code).toBe(
          0,
        );
        const run = await cli(['apply', '--plan', out, '--base-url', emu.url, '--yes', '--recreate-missing']);
        expect(run.stderr).toBe('');
      } else await apply(...flags, '--recreate-missing');
      const c = emu.store.collections.get('offers')!.get(stateOf().resources['Offer/c'].id)!;
      expect(c.billing_partner_offer_id).toBe(stateOf().resources['Offer/a'].id);
    },
  );

  it('a write the platform did not keep is read again by the next plan, not taken as applied', async () => {
    // Once `dropping`, the platform answers a PATCH as if it took it, but never stores it.
    let dropping = false;
    const proxy = await faultyProxy(emu.url, (req) =>
      dropping && req.method === 'PATCH' ? { status: 200, forward: false } : undefined,
    );
    try {
      write([{ kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } }]);
      expect((await cli(['apply', dir, '--base-url', proxy.url, '--yes'])).code).toBe(0);
      dropping = true;
      write([{ kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A2' } }]);
      const run = await cli(['apply', dir, '--base-url', proxy.url, '--yes', '--refresh', 'changed']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('not kept: name (sent "A2", platform has "A")');
      const next = await cli(['plan', dir, '--base-url', proxy.url, '--refresh', 'changed', '--json']);
      const p = JSON.parse(next.stdout) as Plan;
      expect(actions(p)).toEqual({ 'Offer/a': 'update' });
      expect(p.changes[0].diff).toEqual([{ path: 'name', before: 'A', after: 'A2' }]);
      expect(p.changes[0].drift).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });
});

describe('apply --plan of a saved plan whose changes that send nothing were edited (the checksum made again)', () => {
  it.each<[string, (c: Plan['changes'][number]) => void]>([
    ["an unchanged resource's id: another offer", (c) => void (c.id = 'off-x')],
    ["an unchanged resource's fields", (c) => void (c.managed = { ...c.managed, name: 'Edited' })],
    ['an unchanged resource made a release', (c) => void (c.action = 'release')],
  ])('%s: refused, nothing written, the state as it was', async (_, edit) => {
    write([
      { kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } },
      { kind: 'Offer', name: 'c', spec: { project_id: 'p', name: 'C' } },
    ]);
    await apply();
    write([
      { kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } },
      { kind: 'Offer', name: 'c', spec: { project_id: 'p', name: 'C2' } },
    ]);
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', ...against(emu.url, dir), '--out', out])).code).toBe(0);
    const saved = JSON.parse(readFileSync(out, 'utf8')) as Plan;
    expect(actions(saved)).toEqual({ 'Offer/a': 'noop', 'Offer/c': 'update' });
    edit(saved.changes.find((c) => c.address === 'Offer/a')!);
    saved.checksum = planChecksum(saved);
    writeFileSync(out, JSON.stringify(saved));
    const before = readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8');
    emu.clearCalls();
    const run = await cli(['apply', '--plan', out, '--base-url', emu.url, '--yes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Offer/a: the saved change is not what the documents and the state give');
    expect(emu.writes()).toEqual([]);
    expect(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8')).toBe(before);
  });
});

describe('apply --plan of a create whose resource someone else made since the plan', () => {
  it.each([[[]], [['--refresh', 'changed']]])('%j: refused as a duplicate, nothing written', async (flags) => {
    write([{ kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } }]);
    await apply();
    write([
      { kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } },
      { kind: 'Offer', name: 'n', spec: { project_id: 'p', name: 'New' } },
    ]);
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', ...against(emu.url, dir), '--out', out, ...flags])).code).toBe(0);
    const made = await call(emu, 'POST', '/monetization/offers/v1', { project_id: 'p', name: 'New' });
    expect(made.status).toBe(200);
    emu.clearCalls();
    const run = await cli(['apply', '--plan', out, '--base-url', emu.url, '--yes']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Offer/n: the platform already has Offer ${made.body.offer.id} with the same`);
    expect(emu.writes()).toEqual([]);
    const named = [...emu.store.collections.get('offers')!.values()].filter((o) => o.name === 'New');
    expect(named).toHaveLength(1);
  });
});
