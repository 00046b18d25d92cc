// Change windows (issue 47) end to end: the real CLI against the real emulator, the clock injected. An offer that
// targets an event starting within the window's lead is held by a live-event window, applied once the window has
// passed; an override lifts it and is recorded; a saved plan is checked at apply time, not when it was made;
// --all-or-nothing writes nothing; a window that cannot work is a located error.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const kickoff = '2026-12-05T19:00:00Z';
const seed = () => ({
  events: [
    { id: 'ev_derby', project_id: 'p', title: 'Derby day', start_time: kickoff, status: 'EVENT_STATUS_SCHEDULED' },
  ],
  offers: [{ id: 'off_pass', project_id: 'p', name: 'Match pass', priority: '1', target: { event_ids: ['ev_derby'] } }],
});
const project = (windows: object[]) => stringify({ version: 1, name: 'windows', windows });
const matches = {
  name: 'matches',
  kind: 'deny',
  during: 'live_events',
  before: '2h',
  after: '30m',
  event_duration: '2h',
};
const offer = (priority: number) => ({
  kind: 'Offer',
  name: 'pass',
  id: 'off_pass',
  spec: { project_id: 'p', name: 'Match pass', priority, target: { event_ids: ['ev_derby'] } },
});
const other = { kind: 'Offer', name: 'other', spec: { project_id: 'p', name: 'Unrelated offer', priority: 3 } };
const clock = (iso: string) => () => new Date(iso);

async function setup(windows: object[] = [matches]) {
  emu = await emulator(seed());
  return testdir({ 'tapedeck.yaml': project(windows), 'offers.yaml': [offer(5), other] });
}
const livePriority = async () => (await call(emu!, 'GET', '/monetization/offers/v1/off_pass')).body.offer.priority;
const offerCreates = () =>
  emu!.calls().filter((c) => c.method === 'POST' && c.path === '/monetization/offers/v1').length;

describe('a live-event window holds the writes linked to the event', () => {
  it('an hour before kick-off: the plan says why and until when; apply writes the rest and exits 1', async () => {
    const dir = await setup();
    const an = clock('2026-12-05T18:00:00Z');
    const plan = await runCli(['plan', ...against(emu!.url, dir), '--json'], { cwd: dir, now: an });
    expect(plan.code).toBe(0);
    const windows = JSON.parse(plan.stdout).windows;
    expect(windows).toMatchObject({
      checked_at: '2026-12-05T18:00:00Z',
      checked: 1,
      changes: [
        {
          address: 'Offer/pass',
          action: 'update',
          held: true,
          next_allowed: '2026-12-05T21:30:00Z',
          windows: [{ window: 'matches', kind: 'deny', event: 'ev_derby', until: '2026-12-05T21:30:00Z' }],
        },
      ],
    });
    expect(windows.changes[0].windows[0].reason).toContain('Derby day');
    const text = await runCli(['plan', ...against(emu!.url, dir)], { cwd: dir, now: an });
    expect(text.stdout).toContain('Change windows: 1 window checked at 2026-12-05T18:00:00Z; 1 change held.');
    expect(text.stdout).toMatch(/held Offer\/pass \(update\): next allowed at 2026-12-05T21:30:00Z/);
    const md = await runCli(['plan', ...against(emu!.url, dir), '--format', 'markdown'], { cwd: dir, now: an });
    expect(md.stdout).toContain('| ⏸️ held | `Offer/pass` |');
    const gh = await runCli(['plan', ...against(emu!.url, dir), '--format', 'github'], { cwd: dir, now: an });
    // On the line of the held change's document, as the rules' annotations are.
    expect(gh.stdout).toMatch(/^::warning file=offers\.yaml,line=1,title=window matches::Offer\/pass \(update\) held/m);
    expect(JSON.parse(plan.stdout).windows.changes[0]).toMatchObject({ file: 'offers.yaml', line: 1 });

    const eventReads = () => emu!.calls().filter((c) => c.method === 'GET' && c.path.endsWith('/ev_derby')).length;
    const readsBefore = eventReads();
    const apply = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--json'], { cwd: dir, now: an });
    expect(apply.code).toBe(1);
    // No question between the plan and its writes: the verdict made moments ago holds, the event is read once.
    expect(eventReads() - readsBefore).toBe(1);
    const results = JSON.parse(apply.stdout).results;
    expect(results).toContainEqual(
      expect.objectContaining({ address: 'Offer/pass', outcome: 'skipped', error_code: 'E_WINDOW' }),
    );
    expect(results).toContainEqual(expect.objectContaining({ address: 'Offer/other', outcome: 'applied' }));
    expect(await livePriority()).toBe('1');
    expect(offerCreates()).toBe(1);

    // Past the window (kick-off + 2h + 30m): the held change goes, nothing else is sent again.
    const later = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--json'], {
      cwd: dir,
      now: clock('2026-12-05T21:30:00Z'),
    });
    expect(later.code).toBe(0);
    expect(await livePriority()).toBe('5');
    expect(offerCreates()).toBe(1);
    const again = await runCli(['plan', ...against(emu!.url, dir), '--json'], { cwd: dir });
    expect(JSON.parse(again.stdout).summary).toMatchObject({ create: 0, update: 0 });
  });

  it('the event live by its status holds whatever its start time; an override lifts it and is recorded', async () => {
    const dir = await setup();
    await call(emu!, 'PATCH', '/cms/events/v1/ev_derby', {
      event_id: 'ev_derby',
      event_update: { status: 'EVENT_STATUS_STARTED' },
      update_mask: 'status',
    });
    const late = clock('2026-12-06T12:00:00Z'); // long past the start time: the status says it is still on
    const held = await runCli(['plan', ...against(emu!.url, dir), '--json'], { cwd: dir, now: late });
    expect(JSON.parse(held.stdout).windows.changes[0]).toMatchObject({ held: true, next_allowed: null });
    const over = await runCli(
      [
        'apply',
        ...against(emu!.url, dir),
        '--yes',
        '--json',
        '--override-window',
        'matches=price fix approved by ops (INC-7)',
      ],
      { cwd: dir, now: late },
    );
    expect(over.code).toBe(0);
    expect(JSON.parse(over.stdout).overrides).toEqual([
      { window: 'matches', reason: 'price fix approved by ops (INC-7)' },
    ]);
    expect(await livePriority()).toBe('5');
  });

  it('a window with override: false cannot be overridden; an unknown window name is refused', async () => {
    const dir = await setup([{ ...matches, override: false }]);
    const strict = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--override-window', 'matches=please'], {
      cwd: dir,
    });
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('override: false');
    const typo = await runCli(['plan', ...against(emu!.url, dir), '--override-window', 'matchs=x'], { cwd: dir });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('no window has that name (the windows are matches)');
    expect(emu!.calls().filter((c) => c.method !== 'GET')).toEqual([]);
  });
});

describe('when the windows are checked', () => {
  it('apply --plan checks at apply time: a plan saved in a quiet hour does not write during the match', async () => {
    const dir = await setup();
    const saved = join(dir, 'plan.json');
    const quiet = await runCli(['plan', ...against(emu!.url, dir), '--out', saved], {
      cwd: dir,
      now: clock('2026-12-05T08:00:00Z'),
    });
    expect(quiet.code).toBe(0);
    const apply = await runCli(['apply', '--plan', saved, '--base-url', emu!.url, '--yes', '--json'], {
      cwd: dir,
      now: clock('2026-12-05T19:30:00Z'),
    });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('Change windows: 1 window checked at 2026-12-05T19:30:00Z; 1 change held.');
    expect(JSON.parse(apply.stdout).results).toContainEqual(
      expect.objectContaining({ address: 'Offer/pass', outcome: 'skipped' }),
    );
    expect(await livePriority()).toBe('1');
  });

  it('a question answered once the match has begun: the windows are read again when it writes', async () => {
    const dir = await setup();
    let at = '2026-12-05T08:00:00Z';
    const apply = await runCli(['apply', ...against(emu!.url, dir), '--json'], {
      cwd: dir,
      tty: true,
      answer: 'yes',
      now: () => new Date(at),
      onAsk: () => (at = '2026-12-05T19:30:00Z'),
    });
    expect(apply.code).toBe(1);
    expect(JSON.parse(apply.stdout).results).toContainEqual(
      expect.objectContaining({ address: 'Offer/pass', outcome: 'skipped', error_code: 'E_WINDOW' }),
    );
    expect(await livePriority()).toBe('1');
  });

  it('--all-or-nothing writes nothing while a change is held; --now is for plans only', async () => {
    const dir = await setup();
    const run = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--all-or-nothing'], {
      cwd: dir,
      now: clock('2026-12-05T18:00:00Z'),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('held by change windows and --all-or-nothing is given: nothing was written');
    expect(emu!.calls().filter((c) => c.method !== 'GET')).toEqual([]);
    const rehearse = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--now', '2026-12-05T03:00:00Z'], {
      cwd: dir,
    });
    expect(rehearse.code).toBe(1);
    expect(rehearse.stderr).toContain('--now is for plan');
    const plan = await runCli(['plan', ...against(emu!.url, dir), '--json', '--now', '2026-12-05T20:45:00+01:00'], {
      cwd: dir,
    });
    expect(JSON.parse(plan.stdout).windows.checked_at).toBe('2026-12-05T19:45:00Z');
  });

  it('a scheduled deny window in its time zone, and an allow window needed where one guards', async () => {
    const dir = await setup([
      {
        name: 'saturday-night',
        kind: 'deny',
        schedule: '0 18 * * 6',
        time_zone: 'Europe/Berlin',
        duration: '4h',
        match: { kinds: ['Offer'] },
      },
      {
        name: 'office-hours',
        kind: 'allow',
        schedule: '0 9 * * 1-5',
        time_zone: 'Europe/Berlin',
        duration: '8h',
        match: { addresses: ['Offer/other'] },
      },
    ]);
    const plan = await runCli(['plan', ...against(emu!.url, dir), '--json'], {
      cwd: dir,
      now: clock('2026-12-05T17:30:00Z'),
    });
    const byAddress = Object.fromEntries(
      JSON.parse(plan.stdout).windows.changes.map((c: { address: string }) => [c.address, c]),
    );
    expect(byAddress['Offer/pass']).toMatchObject({ held: true, next_allowed: '2026-12-05T21:00:00Z' });
    // Saturday: the allow window opens on Monday 09:00 Berlin (08:00Z), after the deny window closed.
    expect(byAddress['Offer/other']).toMatchObject({ held: true, next_allowed: '2026-12-07T08:00:00Z' });
  });
});

describe('validate locates a window that cannot work', () => {
  it.each([
    [{ name: 'w', kind: 'deny', schedule: '0 18 * * 8', duration: '4h' }, /tapedeck\.yaml:\d+:\d+: .*schedule/],
    [
      { name: 'w', kind: 'deny', schedule: '0 18 * * 6', time_zone: 'Europe/Berln', duration: '4h' },
      /tapedeck\.yaml:\d+:\d+: .*IANA time zone/,
    ],
    [{ name: 'w', kind: 'deny', schedule: '0 18 * * 6', duration: '4 hours' }, /tapedeck\.yaml:\d+:\d+: .*duration/],
    [
      { name: 'w', kind: 'deny', schedule: '0 18 * * 6', duration: '4h', match: { environments: ['prod'] } },
      /did you mean production/,
    ],
  ])('%j', async (window, message) => {
    const dir = testdir({
      'tapedeck.yaml': stringify({ version: 1, environments: { production: {} }, windows: [window] }),
      'offers.yaml': other,
    });
    writeFileSync(join(dir, 'extra.yaml'), '');
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toMatch(message);
  });
});
