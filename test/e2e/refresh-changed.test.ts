// plan --refresh changed (issue 33): only the documents whose desired values differ from what the state recorded
// after the last apply are read; the plan says what it did not read, in every format; drift in a changed document
// is still reported, in an unchanged one it is not; an older state without recorded fields, a changed variable
// and a changed reference make their documents read.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import type { Plan } from '../../src/types.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator;
let dir: string;
const offer = (name: string, id: string, spec: object) => ({
  kind: 'Offer',
  name,
  id,
  spec: { project_id: 'p', ...spec },
});
const docs = (over: Record<string, object> = {}) => [
  offer('a', 'off-a', { name: '${var.label}', priority: 1, ...over.a }),
  offer('b', 'off-b', { name: 'B', priority: 2, ...over.b }),
  offer('c', 'off-c', { name: 'C', billing_partner_offer_id: '${Offer/a.id}', ...over.c }),
  { kind: 'Vod', name: 'v', id: 'vod-1', spec: { name: 'V', ...over.v } },
];
const write = (list: object[]) => writeFileSync(join(dir, 'all.yaml'), list.map((d) => stringify(d)).join('---\n'));
const stateFile = () => join(dir, '.tapedeck/default.state.json');
const cli = (args: string[]) => runCli(args, { cwd: dir });

beforeEach(async () => {
  emu = await emulator({
    offers: ['a', 'b', 'c', 'x'].map((n) => ({ id: `off-${n}`, project_id: 'p', name: 'old' })),
    vods: [{ id: 'vod-1', project_id: 'p', name: 'old' }],
  });
  dir = testdir({ 'tapedeck.yaml': { version: 1, environments: { default: { vars: { label: 'A' } } } } });
  write(docs());
  expect((await cli(['apply', ...against(emu.url, dir), '--yes'])).code).toBe(0);
  emu.clearCalls();
});
afterEach(() => emu.close());

const plan = async (...flags: string[]) => {
  const run = await cli(['plan', ...against(emu.url, dir), '--json', ...flags]);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as Plan;
};
const reads = () =>
  emu
    .calls()
    .filter((c) => !c.write)
    .map((c) => c.path);
const actions = (p: Plan) => Object.fromEntries(p.changes.map((c) => [c.address, c.action]));

describe('plan --refresh changed', () => {
  it('reads nothing when nothing changed since the last apply, and says what it did not read, in every format', async () => {
    const p = await plan('--refresh', 'changed');
    expect(reads()).toEqual([]);
    expect(p.requests).toEqual({ reads: 0 });
    expect(p.refresh).toEqual({ mode: 'changed', not_read: 4 });
    // No change for a document taken from the state: not_read stands for them (as Terraform leaves them out).
    expect(p.changes).toEqual([]);
    expect(p.summary).toMatchObject({ noop: 0, update: 0 });
    const serial = p.state.serial;
    expect(serial).toBeGreaterThan(0);
    const note = `4 documents not read (unchanged since state serial ${serial}): drift in them is not checked; a full plan checks it.`;
    const text = await cli(['plan', ...against(emu.url, dir), '--refresh', 'changed']);
    expect(text.stdout).toMatch(new RegExp(`^${note.replace(/[().]/g, '\\$&')}\\n\\nPlan for environment default`));
    const quiet = await cli(['plan', ...against(emu.url, dir), '--refresh', 'changed', '--quiet']);
    expect(quiet.stdout).toBe(`${note}\nNo changes. 4 resources up to date.\n`);
    const markdown = await cli(['plan', ...against(emu.url, dir), '--refresh', 'changed', '--format', 'markdown']);
    expect(markdown.stdout).toContain(`\n> ℹ️ ${note}\n`);
    // A full plan reads every document and says nothing of the kind.
    const full = await plan();
    expect(full.refresh).toBeUndefined();
    expect(full.requests!.reads).toBe(4);
  });

  it('says every document was read when none was taken from the state (not "0 documents not read")', async () => {
    const fresh = ['--state', join(dir, 'fresh.state.json')];
    const p = await plan('--refresh', 'changed', ...fresh);
    expect(p.refresh).toEqual({ mode: 'changed', not_read: 0 });
    expect(p.requests!.reads).toBe(4);
    const text = await cli(['plan', ...against(emu.url, dir), '--refresh', 'changed', ...fresh, '--quiet']);
    expect(text.stdout).toMatch(/^Every document read: none is unchanged since state serial 0\.\n/);
    expect(text.stdout).not.toContain('not read');
  });

  it('reads only the changed document; the saved plan records the mode and the serial, and applies', async () => {
    write(docs({ b: { name: 'B2' } }));
    const out = join(dir, 'plan.json');
    const p = await plan('--refresh', 'changed', '--out', out);
    expect(reads()).toEqual(['/monetization/offers/v1/off-b']);
    expect(actions(p)).toEqual({ 'Offer/b': 'update' });
    const saved = JSON.parse(readFileSync(out, 'utf8')) as Plan;
    expect(saved.refresh).toEqual({ mode: 'changed', not_read: 3 });
    expect(saved.state.serial).toBe(p.state.serial);
    emu.clearCalls();
    const applied = await cli(['apply', '--plan', out, '--base-url', emu.url, '--yes', '--json']);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout).summary).toMatchObject({ applied: 1, unchanged: 3 });
    // Reads only what it writes: the offer before its write, and after it (read back).
    expect(reads()).toEqual(['/monetization/offers/v1/off-b', '/monetization/offers/v1/off-b']);
    expect((await plan('--refresh', 'changed')).requests).toEqual({ reads: 0 });
  });

  it('reports drift in a changed document; drift in an unchanged one is not read, and the plan says so', async () => {
    await call(emu, 'PATCH', '/monetization/offers/v1/off-a', {
      offer_id: 'off-a',
      offer: { priority: '7' },
      update_mask: 'priority',
    });
    await call(emu, 'PATCH', '/monetization/offers/v1/off-b', {
      offer_id: 'off-b',
      offer: { name: 'changed by hand' },
      update_mask: 'name',
    });
    write(docs({ a: { name: 'A2' } }));
    const p = await plan('--refresh', 'changed');
    const a = p.changes.find((c) => c.address === 'Offer/a')!;
    expect(a.drift).toEqual([{ path: 'priority', before: '1', after: '7' }]);
    expect(a.update_mask).toEqual(['name', 'priority']);
    expect(actions(p)).toEqual({ 'Offer/a': 'update' });
    expect(p.refresh!.not_read).toBe(3);
    // The full plan sees it.
    const full = await plan();
    expect(full.changes.find((c) => c.address === 'Offer/b')!.drift).toEqual([
      { path: 'name', before: 'B', after: 'changed by hand' },
    ]);
  });

  it('a state written without recorded fields (an older tapedeck) makes those documents read', async () => {
    const state = JSON.parse(readFileSync(stateFile(), 'utf8'));
    delete state.resources['Vod/v'].fields;
    writeFileSync(stateFile(), JSON.stringify(state));
    const p = await plan('--refresh', 'changed');
    expect(reads()).toEqual(['/streaming/vods/v1/vod-1']);
    expect(p.refresh!.not_read).toBe(3);
  });

  it("apply records each document's digest; a document with the recorded digest is taken as unchanged unresolved", async () => {
    const state = JSON.parse(readFileSync(stateFile(), 'utf8'));
    const digests = Object.values(state.resources).map((e) => (e as { digest?: string }).digest);
    expect(digests.every((d) => typeof d === 'string' && d.length === 22)).toBe(true);
    expect(new Set(digests).size).toBe(4);
    // Fields edited by hand behind an unchanged digest: the digest alone decides (the values are not compared).
    state.resources['Offer/b'].fields.name = 'edited';
    writeFileSync(stateFile(), JSON.stringify(state));
    expect((await plan('--refresh', 'changed')).requests).toEqual({ reads: 0 });
    // Without digests (a state from before them), the values are compared: Offer/b is read, the others are not.
    for (const e of Object.values(state.resources)) delete (e as { digest?: string }).digest;
    writeFileSync(stateFile(), JSON.stringify(state));
    const p = await plan('--refresh', 'changed');
    expect(reads()).toEqual(['/monetization/offers/v1/off-b']);
    expect(p.refresh!.not_read).toBe(3);
  });

  it('a changed variable makes the documents using it read, and with them those referring to them by id', async () => {
    const p = await plan('--refresh', 'changed', '--var', 'label=A2');
    expect(reads()).toEqual(['/monetization/offers/v1/off-a']);
    expect(actions(p)['Offer/a']).toBe('update');
    // The same text with the same value is no change: values are compared once resolved, not as written.
    emu.clearCalls();
    write(docs({ a: { name: 'A' } }));
    expect((await plan('--refresh', 'changed')).requests).toEqual({ reads: 0 });
  });

  it('a changed reference makes the document using it read', async () => {
    // Offer/a now names another offer: Offer/c's reference resolves to another id.
    write(docs().map((d) => (d.name === 'a' ? { ...d, id: 'off-x' } : d)));
    const p = await plan('--refresh', 'changed');
    expect(reads().sort()).toEqual(['/monetization/offers/v1/off-c', '/monetization/offers/v1/off-x']);
    const c = p.changes.find((x) => x.address === 'Offer/c')!;
    expect(c.diff).toEqual([{ path: 'billing_partner_offer_id', before: 'off-a', after: 'off-x' }]);
  });

  it('a new document (a create) is read and planned as in a full plan; apply --refresh changed writes it', async () => {
    write([...docs(), { kind: 'Offer', name: 'new', spec: { project_id: 'p', name: 'New' } }]);
    const p = await plan('--refresh', 'changed');
    expect(actions(p)['Offer/new']).toBe('create');
    expect(p.refresh!.not_read).toBe(4);
    const applied = await cli(['apply', ...against(emu.url, dir), '--refresh', 'changed', '--yes', '--json']);
    expect(JSON.parse(applied.stdout).summary).toMatchObject({ applied: 1, unchanged: 4 });
    expect((await plan('--refresh', 'changed')).refresh).toEqual({ mode: 'changed', not_read: 5 });
  });

  it('--refresh takes full or changed', async () => {
    const run = await cli(['plan', ...against(emu.url, dir), '--refresh', 'some']);
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: --refresh must be full or changed, not "some"\n',
    });
    expect(emu.calls()).toEqual([]);
  });
});

describe('apply --plan reads only what it writes', () => {
  const save = async (...flags: string[]) => {
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', ...against(emu.url, dir), '--out', out, ...flags])).code).toBe(0);
    emu.clearCalls();
    return out;
  };
  const applySaved = (out: string, ...flags: string[]) =>
    cli(['apply', '--plan', out, '--base-url', emu.url, '--yes', ...flags]);

  it('a full plan: only the written resource is read again, the rest is applied as saved', async () => {
    write(docs({ v: { name: 'V2' } }));
    const out = await save();
    expect((await applySaved(out)).code).toBe(0);
    expect(reads()).toEqual(['/streaming/vods/v1/vod-1', '/streaming/vods/v1/vod-1']);
    expect(emu.writes().map((c) => `${c.method} ${c.path}`)).toEqual(['PATCH /streaming/vods/v1/vod-1']);
    expect((await plan()).summary).toMatchObject({ update: 0, noop: 4 });
  });

  it.each([[[]], [['--refresh', 'changed']]])(
    '%j: a resource it writes that moved since the plan is refused, nothing written',
    async (flags) => {
      write(docs({ b: { name: 'B2' } }));
      const out = await save(...flags);
      await call(emu, 'PATCH', '/monetization/offers/v1/off-b', {
        offer_id: 'off-b',
        offer: { priority: '9' },
        update_mask: 'priority',
      });
      emu.clearCalls();
      const run = await applySaved(out);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('is stale; nothing was written');
      expect(run.stderr).toContain('Offer/b: the live resource changed since the plan was made');
      expect(emu.writes()).toEqual([]);
      expect(reads()).toEqual(['/monetization/offers/v1/off-b']);
    },
  );

  it('--refresh changed: a write referring to a document taken from the state applies (its id from the state)', async () => {
    write(docs({ c: { name: 'C2' } }));
    const out = await save('--refresh', 'changed');
    const saved = JSON.parse(readFileSync(out, 'utf8')) as Plan;
    expect(actions(saved)).toEqual({ 'Offer/c': 'update' });
    const run = await applySaved(out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(emu.writes().map((c) => `${c.method} ${c.path}`)).toEqual(['PATCH /monetization/offers/v1/off-c']);
    expect((await plan()).summary).toMatchObject({ update: 0, noop: 4 });
  });

  it('a create noted as a likely rename (of an entry no document declares) applies as saved', async () => {
    write([
      ...docs().filter((d) => d.name !== 'b'),
      // A look-alike of a managed offer is refused unless said on purpose (allow_duplicate).
      { kind: 'Offer', name: 'b2', allow_duplicate: true, spec: { project_id: 'p', name: 'B', priority: 2 } },
    ]);
    const out = await save();
    const saved = JSON.parse(readFileSync(out, 'utf8')) as Plan;
    expect(saved.changes.find((c) => c.address === 'Offer/b2')!.notes).toEqual([
      expect.stringContaining('allow_duplicate: a second Offer'),
      expect.stringContaining('looks like a rename of Offer/b'),
    ]);
    const run = await applySaved(out);
    expect(run.stderr).toBe('');
    expect(emu.writes().map((c) => `${c.method} ${c.path}`)).toEqual(['POST /monetization/offers/v1']);
  });

  it('refuses another --refresh than the plan was made with; nothing sent', async () => {
    const out = await save('--refresh', 'changed');
    const run = await applySaved(out, '--refresh', 'full');
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('was made with --refresh changed, not --refresh full'),
    });
    expect(emu.calls()).toEqual([]);
  });
});
