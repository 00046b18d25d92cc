// The change windows' rules as tables: cron edges, time zones across a DST change, overlapping allow and deny
// windows, live events, overrides and the next allowed time.
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/types.js';
import { checkWindows, heldAddresses } from '../../src/windows/evaluate.js';
import type { EventRead } from '../../src/windows/live.js';
import { compile, openAt } from '../../src/windows/schedule.js';
import { readWindows, type WindowSpec } from '../../src/windows/spec.js';
import { formatDuration, parseDuration } from '../../src/util/duration.js';

const vocabulary = {
  kinds: ['Offer', 'Event', 'VideoProtectionRuleset'],
  environments: ['staging', 'production'],
  addresses: () => ['Offer/season', 'Event/derby', 'VideoProtectionRuleset/geo'],
};

function windows(specs: WindowSpec[]) {
  const { windows: out, issues } = readWindows(specs, undefined, vocabulary);
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  return out;
}

const change = (address: string, action: Change['action'] = 'update', live_events?: string[]): Change => ({
  address,
  kind: address.split('/')[0],
  action,
  ...(live_events ? { live_events } : {}),
});

const at = (iso: string) => new Date(iso);

describe('durations', () => {
  it.each([
    ['2h', 7_200_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['90s', 90_000],
    ['2 hours', undefined],
    ['1.5h', undefined],
    ['', undefined],
    ['h', undefined],
  ])('%j is %j ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    if (ms !== undefined) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});

describe('a schedule is open from each start for its duration, in its time zone', () => {
  // Saturdays 18:00 for 4 hours in Berlin: 17:00Z in winter (CET), 16:00Z in summer (CEST).
  const sat = compile('0 18 * * 6', 'Europe/Berlin', 4 * 3_600_000);
  it.each([
    ['2026-12-05T16:59:59Z', false, 'a second before the start'],
    ['2026-12-05T17:00:00Z', true, 'at the start exactly'],
    ['2026-12-05T20:59:59Z', true, 'a second before the end'],
    ['2026-12-05T21:00:00Z', false, 'at the end exactly (the end is not in it)'],
    ['2026-06-06T16:00:00Z', true, 'in summer time, an hour earlier in UTC'],
    ['2026-06-06T20:00:00Z', false, 'in summer time, 22:00 local: closed'],
    ['2026-12-06T17:30:00Z', false, 'a Sunday'],
  ])('%s: %s (%s)', (when, open) => {
    expect(Boolean(openAt(sat, at(when)))).toBe(open);
  });

  it('a start in the spring-forward gap opens at the first time after it; a repeated hour opens once', () => {
    const night = compile('30 2 * * *', 'Europe/Berlin', 30 * 60_000);
    // 2026-03-29: 02:00-03:00 local does not exist; 03:00 CEST is 01:00Z.
    expect(openAt(night, at('2026-03-29T01:10:00Z'))?.start.toISOString()).toBe('2026-03-29T01:00:00.000Z');
    // 2026-10-25: 02:30 local happens twice (00:30Z and 01:30Z); a fixed-time schedule starts once, at the first.
    expect(openAt(night, at('2026-10-25T00:45:00Z'))?.start.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(openAt(night, at('2026-10-25T01:45:00Z'))).toBeUndefined();
  });

  it('day-of-month and day-of-week both given: either day, as Vixie cron reads it', () => {
    const s = compile('0 12 13 * 5', 'UTC', 3_600_000);
    expect(Boolean(openAt(s, at('2026-11-13T12:30:00Z')))).toBe(true); // the 13th, a Friday
    expect(Boolean(openAt(s, at('2026-11-20T12:30:00Z')))).toBe(true); // a Friday
    expect(Boolean(openAt(s, at('2026-12-13T12:30:00Z')))).toBe(true); // the 13th, a Sunday
    expect(Boolean(openAt(s, at('2026-12-14T12:30:00Z')))).toBe(false);
  });
});

describe('what the windows hold', () => {
  const deny = {
    name: 'saturday',
    kind: 'deny',
    schedule: '0 18 * * 6',
    time_zone: 'Europe/Berlin',
    duration: '4h',
  } as const;
  const allow = { name: 'office', kind: 'allow', schedule: '0 9 * * 1-5', time_zone: 'UTC', duration: '8h' } as const;
  const ctx = (
    now: string,
    overrides: { window: string; reason: string }[] = [],
    events = new Map<string, EventRead>(),
  ) => ({ environment: 'production', now: at(now), events, overrides });

  it.each([
    // [windows, now, held?, next allowed]
    [[deny], '2026-12-05T18:00:00Z', true, '2026-12-05T21:00:00Z'],
    [[deny], '2026-12-05T21:00:00Z', false, undefined],
    [[allow], '2026-12-07T08:00:00Z', true, '2026-12-07T09:00:00Z'], // Monday before 9
    [[allow], '2026-12-07T10:00:00Z', false, undefined],
    [[allow], '2026-12-05T10:00:00Z', true, '2026-12-07T09:00:00Z'], // Saturday: next Monday
    // Overlap: an allow window open, a deny window open too: the deny wins.
    [
      [allow, { ...deny, schedule: '0 10 * * 1', time_zone: 'UTC', duration: '1h' }],
      '2026-12-07T10:30:00Z',
      true,
      '2026-12-07T11:00:00Z',
    ],
    // The deny closes after the allow did: the next allowed time is the next allow opening.
    [
      [allow, { ...deny, schedule: '0 16 * * 1', time_zone: 'UTC', duration: '2h' }],
      '2026-12-07T16:30:00Z',
      true,
      '2026-12-08T09:00:00Z',
    ],
  ] as const)('%#: at %s held %s, next %s', (specs, now, held, next) => {
    const report = checkWindows([change('Offer/season')], windows([...specs] as WindowSpec[]), ctx(now));
    const c = report.changes[0];
    expect(c?.held ?? false).toBe(held);
    if (held) expect(c.next_allowed).toBe(next);
  });

  it('guards only what its match names, and only writes', () => {
    const only = windows([{ ...deny, match: { kinds: ['Event'], environments: ['production'] } }]);
    const now = ctx('2026-12-05T18:00:00Z');
    const report = checkWindows(
      [change('Offer/season'), change('Event/derby'), change('Event/derby', 'noop'), change('Event/derby', 'release')],
      only,
      now,
    );
    expect(report.changes.map((c) => [c.address, c.action])).toEqual([['Event/derby', 'update']]);
    expect(checkWindows([change('Event/derby')], only, { ...now, environment: 'staging' }).changes).toEqual([]);
  });

  it('an override lifts a hold and is recorded; a window may forbid it', () => {
    const report = checkWindows(
      [change('Offer/season')],
      windows([deny]),
      ctx('2026-12-05T18:00:00Z', [{ window: 'saturday', reason: 'hotfix' }]),
    );
    expect(report.changes[0]).toMatchObject({ held: false, windows: [{ window: 'saturday', overridden: 'hotfix' }] });
    const strict = windows([{ ...deny, override: false }]);
    expect(strict[0].overridable).toBe(false);
  });

  it('a live event holds the writes linked to it, from its status or its start time; unread is live', () => {
    const live = windows([
      { name: 'matches', kind: 'deny', during: 'live_events', before: '2h', after: '30m', event_duration: '2h' },
    ]);
    const events = new Map<string, EventRead>([
      [
        'ev_started',
        { id: 'ev_started', title: 'Derby', status: 'EVENT_STATUS_STARTED', start_time: '2026-12-01T10:00:00Z' },
      ],
      [
        'ev_soon',
        { id: 'ev_soon', title: 'Final', status: 'EVENT_STATUS_SCHEDULED', start_time: '2026-12-05T19:00:00Z' },
      ],
      ['ev_done', { id: 'ev_done', status: 'EVENT_STATUS_FINISHED', start_time: '2026-12-05T18:00:00Z' }],
      ['ev_broken', { error: 'HTTP 503' }],
      ['ev_gone', null],
    ]);
    const now = ctx('2026-12-05T18:00:00Z', [], events);
    const report = checkWindows(
      [
        change('Offer/a', 'update', ['ev_started']),
        change('Offer/b', 'update', ['ev_soon']),
        change('Offer/c', 'update', ['ev_done']),
        change('Offer/d', 'update', ['ev_broken']),
        change('Offer/e', 'update', ['ev_gone']),
        change('Offer/f', 'update', ['ev_unread']),
        change('Offer/g', 'update'),
      ],
      live,
      now,
    );
    const byAddress = Object.fromEntries(report.changes.map((c) => [c.address, c]));
    expect(Object.keys(byAddress)).toEqual(['Offer/a', 'Offer/b', 'Offer/d', 'Offer/f']);
    expect(byAddress['Offer/a'].next_allowed).toBeNull(); // live by status: until the status changes
    expect(byAddress['Offer/b'].next_allowed).toBe('2026-12-05T21:30:00Z'); // 19:00 + 2h + 30m
    expect(byAddress['Offer/b'].windows[0]).toMatchObject({ event: 'ev_soon', until: '2026-12-05T21:30:00Z' });
    expect(byAddress['Offer/d'].windows[0].reason).toContain('could not be read');
  });

  it('what waits on a held change is held too', () => {
    const changes = [
      change('Offer/season'),
      { ...change('Offer/child', 'create'), depends_on: ['Offer/season'] },
      change('Offer/other'),
    ];
    const report = checkWindows(
      changes,
      windows([{ ...deny, match: { addresses: ['Offer/season'] } }]),
      ctx('2026-12-05T18:00:00Z'),
    );
    expect([...heldAddresses(report, changes)]).toEqual(['Offer/season', 'Offer/child']);
  });
});

describe('windows that could never work are located errors', () => {
  it.each([
    [{ name: 'w', kind: 'deny', schedule: '0 25 * * *', duration: '1h' }, 'schedule'],
    [{ name: 'w', kind: 'deny', schedule: '0 1 * * * *', duration: '1h' }, 'five fields'],
    [{ name: 'w', kind: 'deny', schedule: '0 1 * * *', time_zone: 'Europe/Berlinn', duration: '1h' }, 'IANA'],
    [{ name: 'w', kind: 'deny', schedule: '0 1 * * *', duration: '1 hour' }, 'not a duration'],
    [{ name: 'w', kind: 'deny', schedule: '0 1 * * *' }, 'needs a schedule and a duration'],
    [{ name: 'w', kind: 'allow', during: 'live_events' }, 'is a deny window'],
    [
      { name: 'w', kind: 'deny', schedule: '0 1 * * *', duration: '1h', match: { environments: ['prod'] } },
      'did you mean production',
    ],
    [{ name: 'w', kind: 'deny', schedule: '0 1 * * *', duration: '1h', match: { actions: ['upsert'] } }, 'never match'],
    [
      { name: 'w', kind: 'deny', schedule: '0 1 * * *', duration: '1h', match: { kinds: ['Ofer'] } },
      'did you mean Offer',
    ],
  ] as const)('%j: %s', (spec, message) => {
    const { issues } = readWindows([spec as WindowSpec], undefined, vocabulary);
    expect(issues.map((i) => i.message).join('\n')).toContain(message);
    expect(issues.some((i) => i.severity === 'error')).toBe(true);
  });

  it('an address glob that matches nothing is a warning', () => {
    const { issues, windows: out } = readWindows(
      [{ name: 'w', kind: 'deny', schedule: '0 1 * * *', duration: '1h', match: { addresses: ['Offer/seasn*'] } }],
      undefined,
      vocabulary,
    );
    expect(issues).toMatchObject([{ severity: 'warning', message: expect.stringContaining('matches no document') }]);
    expect(out).toHaveLength(1);
  });
});
