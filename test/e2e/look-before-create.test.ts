// Look before creating: a create whose natural key (declared per kind in the schemas, x-natural-key) a live resource
// no state entry claims already has is refused with the one command that adopts it; allow_duplicate says otherwise.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const offer = (name: string, title: string, extra: object = {}, project = 'p') => ({
  kind: 'Offer',
  name,
  ...extra,
  spec: { project_id: project, name: title, priority: 3 },
});
const write = (dir: string, docs: object[]) =>
  writeFileSync(join(dir, 'a.yaml'), docs.map((d) => stringify(d)).join('---\n'));
const offers = () => emu!.store.collections.get('offers')!.size;
const offerLists = () =>
  emu!.calls().filter((c) => c.method === 'GET' && c.path.startsWith('/monetization/offers/v1?'));

describe('look before creating', () => {
  it('a create whose natural key a live resource already has is a located error naming it and the import command; nothing is sent', async () => {
    emu = await emulator({ offers: [{ id: 'off_live', project_id: 'p', name: 'Premium', priority: '1' }] });
    const dir = testdir({ 'a.yaml': [offer('premium', 'Premium')] });
    for (const command of ['plan', 'apply']) {
      const run = await runCli([command, ...against(emu.url, dir), ...(command === 'apply' ? ['--yes'] : [])], {
        cwd: dir,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^a\.yaml:\d+:\d+: Offer\/premium: the platform already has Offer off_live with the same project_id, name/m,
      );
      expect(run.stderr).toContain('`tapedeck import Offer/premium off_live`');
      expect(run.stderr).toContain('allow_duplicate: true');
    }
    expect(emu.writes()).toEqual([]);
    expect(offers()).toBe(1);
  });

  it('another project or another name is no duplicate: created', async () => {
    emu = await emulator({ offers: [{ id: 'off_live', project_id: 'p', name: 'Premium' }] });
    const dir = testdir({
      'a.yaml': [offer('other-project', 'Premium', {}, 'q'), offer('other-name', 'Premium yearly')],
    });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(offers()).toBe(3);
  });

  it('allow_duplicate: true creates a second one, and the plan says so naming the first', async () => {
    emu = await emulator({ offers: [{ id: 'off_live', project_id: 'p', name: 'Premium' }] });
    const dir = testdir({ 'a.yaml': [offer('premium', 'Premium', { allow_duplicate: true })] });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('+ Offer/premium will be created');
    expect(plan.stdout).toContain('allow_duplicate: a second Offer with the same project_id, name as off_live');
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect(offers()).toBe(2);
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it("reads each scope's list once, and only when the plan has creates of that kind", async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [offer('a', 'A'), offer('b', 'B'), offer('c', 'C'), offer('d', 'D', {}, 'q')] });
    expect((await runCli(['plan', ...against(emu.url, dir)], { cwd: dir })).code).toBe(0);
    expect(
      offerLists()
        .map((c) => new URL(c.path, 'http://x').searchParams.get('project_id'))
        .sort(),
    ).toEqual(['p', 'q']);
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    const known = offerLists().length;
    expect((await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
    expect(offerLists().length).toBe(known);
  });

  it('a released resource with the same natural key is named with the moved_from that takes it back', async () => {
    emu = await emulator({});
    const ruleset = (name: string) => ({
      kind: 'VideoProtectionRuleset',
      name,
      spec: { project_id: 'p', name: 'Geo' },
    });
    const dir = testdir({ 'a.yaml': [ruleset('geo'), offer('basic', 'Basic')] });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    write(dir, [offer('basic', 'Basic')]);
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    write(dir, [ruleset('geo-eu'), offer('basic', 'Basic')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /a\.yaml:\d+:\d+: VideoProtectionRuleset\/geo-eu: the platform already has VideoProtectionRuleset vpr_\w+ with the same project_id, name, released from VideoProtectionRuleset\/geo/,
    );
    expect(plan.stderr).toContain('moved_from: VideoProtectionRuleset/geo');
    expect(emu.store.collections.get('video_protection_rulesets')!.size).toBe(1);
  });

  it('a copy-pasted document under a new name is a located error naming the address that manages the look-alike and its id', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [offer('season-pass', 'Season pass')] });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    const [id] = [...emu.store.collections.get('offers')!.keys()];
    write(dir, [offer('season-pass', 'Season pass'), offer('season-pass-2', 'Season pass')]);
    for (const command of ['plan', 'apply']) {
      const run = await runCli([command, ...against(emu.url, dir), ...(command === 'apply' ? ['--yes'] : [])], {
        cwd: dir,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^a\\.yaml:\\d+:\\d+: Offer/season-pass-2: the platform already has Offer ${id} with the same project_id, name, managed by Offer/season-pass: `,
          'm',
        ),
      );
      expect(run.stderr).toContain('allow_duplicate: true');
    }
    expect(offers()).toBe(1);
    // Said on purpose, it is made.
    write(dir, [offer('season-pass', 'Season pass'), offer('season-pass-2', 'Season pass', { allow_duplicate: true })]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.stdout).toContain(`allow_duplicate: a second Offer with the same project_id, name as ${id}`);
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect(offers()).toBe(2);
  });

  it('a document renamed without moved_from is told to take the entry it replaces back, not to make a second one', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': [offer('season-pass', 'Season pass')] });
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    write(dir, [offer('season-ticket', 'Season pass')]);
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /Offer\/season-ticket: the platform already has Offer off_\w+ with the same project_id, name, managed by Offer\/season-pass, which no document declares any more/,
    );
    expect(plan.stderr).toContain('`moved_from: Offer/season-pass`');
    write(dir, [offer('season-ticket', 'Season pass', { moved_from: 'Offer/season-pass' })]);
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    expect(offers()).toBe(1);
  });

  it('a kind without a list says in the plan that duplicates could not be checked', async () => {
    emu = await emulator({});
    const dir = testdir({
      'a.yaml': [{ kind: 'StandingPhase', name: 's', spec: { project_id: 'p', localized_name: { en: 'Season' } } }],
    });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).changes[0]).toMatchObject({
      action: 'create',
      notes: ['duplicates could not be checked: a StandingPhase has no list to look in'],
    });
  });

  it('an event is the same by title and start time, compared as instants', async () => {
    emu = await emulator({
      events: [{ id: 'evt_live', project_id: 'p', title: 'Final', start_time: '2026-06-01T20:00:00Z' }],
    });
    const dir = testdir({
      'a.yaml': [
        {
          kind: 'Event',
          name: 'final',
          spec: { project_id: 'p', title: 'Final', start_time: '2026-06-01T22:00:00+02:00' },
        },
      ],
    });
    const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'the platform already has Event evt_live with the same project_id, title, start_time',
    );
    expect(plan.stderr).toContain('`tapedeck import Event/final evt_live`');
  });

  describe('a duplicated event (duplicate_from)', () => {
    const source = { id: 'evt_tpl', project_id: 'p', title: 'Derby day', start_time: '2026-06-01T20:00:00Z' };
    const derby = (spec: object, extra: object = {}) => ({
      kind: 'Event',
      name: 'derby',
      duplicate_from: 'evt_tpl',
      ...extra,
      spec,
    });

    it('with a lost state, a copy the platform already has is a located error naming it; nothing is sent', async () => {
      emu = await emulator({
        events: [
          source,
          { ...source, id: 'evt_made', title: 'Derby day (second leg)', start_time: '2026-06-08T20:00:00Z' },
        ],
      });
      const dir = testdir({ 'a.yaml': [derby({ title: '%@ (second leg)', start_time: '2026-06-08T22:00:00+02:00' })] });
      for (const command of ['plan', 'apply']) {
        const run = await runCli([command, ...against(emu.url, dir), ...(command === 'apply' ? ['--yes'] : [])], {
          cwd: dir,
        });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /^a\.yaml:\d+:\d+: Event\/derby: the platform already has Event evt_made with the same project_id, title, start_time, which no state entry manages/m,
        );
        expect(run.stderr).toContain('`tapedeck import Event/derby evt_made`');
      }
      expect(emu.writes()).toEqual([]);
      expect(emu.store.collections.get('events')!.size).toBe(2);
    });

    it('a copy under a new name of a duplicate the state manages is refused, naming it', async () => {
      emu = await emulator({ events: [source] });
      const spec = { title: '%@ (replay)' };
      const dir = testdir({ 'a.yaml': [derby(spec)] });
      expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
      write(dir, [derby(spec), { ...derby(spec), name: 'derby-again' }]);
      const plan = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
      expect(plan.code).toBe(1);
      expect(plan.stderr).toMatch(
        /Event\/derby-again: the platform already has Event evt_\w+ with the same project_id, title, start_time, managed by Event\/derby/,
      );
      expect(emu.store.collections.get('events')!.size).toBe(2);
    });

    it('a new copy is created, the plan naming its source by id and title in text, Markdown and JSON', async () => {
      emu = await emulator({ events: [source] });
      const dir = testdir({ 'a.yaml': [derby({ title: '%@ (replay)' })] });
      const note = 'a copy of Event evt_tpl (title "Derby day")';
      const json = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
      expect(JSON.parse(json.stdout).changes[0]).toMatchObject({ action: 'create', notes: [note] });
      const text = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
      expect(text.stdout).toContain(note);
      const md = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
      expect(md.stdout).toContain('> a copy of Event evt\\_tpl (title &quot;Derby day&quot;)');
      expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
      expect(emu.store.collections.get('events')!.size).toBe(2);
    });

    it('a copy of an event created in the same apply says duplicates could not be checked, in every format', async () => {
      emu = await emulator({ events: [source] });
      const dir = testdir({
        'a.yaml': [
          derby({ title: 'Derby day 2' }),
          { kind: 'Event', name: 'replay', duplicate_from: '${Event/derby.id}', spec: { title: '%@ (replay)' } },
        ],
      });
      const unknown =
        "duplicates could not be checked: Event/derby is created in this apply, so the copy's project_id, title, start_time are not known before it";
      const json = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
      expect(json.code, json.stderr).toBe(0);
      const replay = JSON.parse(json.stdout).changes.find((c: { address: string }) => c.address === 'Event/replay');
      expect(replay.notes).toEqual(['a copy of Event/derby, created in this apply', unknown]);
      expect((await runCli(['plan', ...against(emu.url, dir)], { cwd: dir })).stdout).toContain(unknown);
      const md = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
      expect(md.stdout).toContain('> duplicates could not be checked: Event/derby is created in this apply');
    });
  });
});
