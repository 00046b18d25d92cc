// The fleet bucket's rule (src/budget/allocate.ts) before the platform's limit is known, as tables of asks: a `share`
// is a fraction of a limit no answer has told yet. Every grant is a number of requests a second (never NaN: a NaN
// rate stalled its process for good, the share hang of issue 45), the fleet sends at most PROBE_RPS until an answer
// tells the limit (or that the platform publishes none), and the processes held back meanwhile ask again soon.
import { describe, expect, it } from 'vitest';
import {
  allocate,
  HEADROOM,
  PROBE_RENEW_MS,
  PROBE_RPS,
  type BucketDoc,
  type Grant,
  type LeaseAsk,
} from '../../src/budget/allocate.js';
import { leaseAsk } from '../helpers/budget.js';

const ask = leaseAsk;
const share = { share: 0.5 };

type Step = { at: number; ask: LeaseAsk };
/** The grants of the asks applied one after the other, from an empty bucket. */
function run(steps: Step[]): { grants: Grant[]; doc: BucketDoc } {
  let doc: BucketDoc | undefined;
  const grants: Grant[] = [];
  for (const s of steps) {
    const r = allocate(doc, s.ask, s.at);
    doc = r.doc;
    grants.push(r.grant);
  }
  return { grants, doc: doc! };
}

describe('grants are numbers of requests a second, whatever came before', () => {
  it.each<[string, Step[]]>([
    [
      'two processes with a share ask before any answer told the limit',
      [
        { at: 0, ask: ask('a', share) },
        { at: 5, ask: ask('b', share) },
      ],
    ],
    [
      'the platform publishes no limit: two shares, nothing limits either',
      [
        { at: 0, ask: ask('a', { ...share, platform_limit: null }) },
        { at: 5, ask: ask('b', share) },
      ],
    ],
    [
      'a holder granted no limit (the platform publishes none), then one with max_rps',
      [
        { at: 0, ask: ask('a', { ...share, platform_limit: null }) },
        { at: 5, ask: ask('b', { max_rps: 100 }) },
      ],
    ],
    [
      'the limit reported while another holds a probe, then the others renew',
      [
        { at: 0, ask: ask('a', share) },
        { at: 2, ask: ask('b', share) },
        { at: 9, ask: ask('a', { ...share, platform_limit: 200 }) },
        { at: 150, ask: ask('b', share) },
        { at: 2100, ask: ask('a', { ...share, platform_limit: 200 }) },
      ],
    ],
    [
      'a Retry-After while the limit is not known',
      [
        { at: 0, ask: ask('a', { ...share, retry_after_ms: 1000 }) },
        { at: 5, ask: ask('b', share) },
        { at: 1100, ask: ask('b', { ...share, platform_limit: 200 }) },
      ],
    ],
  ])('%s', (_, steps) => {
    for (const g of run(steps).grants) {
      expect(Number.isNaN(g.rate)).toBe(false);
      expect(g.rate).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(g.renewInMs) && g.renewInMs > 0).toBe(true);
    }
  });
});

describe('before an answer tells the limit a share is of', () => {
  it.each<[string, Step[], number[]]>([
    ['a lone process: the probe', [{ at: 0, ask: ask('a', share) }], [PROBE_RPS]],
    [
      'the fleet shares the probe: the others hold nothing meanwhile',
      [
        { at: 0, ask: ask('a', share) },
        { at: 3, ask: ask('b', share) },
        { at: 6, ask: ask('c', share) },
      ],
      [PROBE_RPS, 0, 0],
    ],
    [
      'a max_rps beside a share: the probe binds too (the share is not known yet)',
      [
        { at: 0, ask: ask('a', { max_rps: 500 }) },
        { at: 3, ask: ask('b', share) },
      ],
      [HEADROOM * 500, 0],
    ],
  ])('%s', (_, steps, rates) => {
    const { grants } = run(steps);
    expect(grants.map((g) => g.rate)).toEqual(rates.map((r) => expect.closeTo(r, 6)));
  });

  it('every lease is short while probing: the processes held back ask again soon after the answer came', () => {
    const { grants } = run([
      { at: 0, ask: ask('a', share) },
      { at: 3, ask: ask('b', share) },
    ]);
    expect(grants.map((g) => g.probe)).toEqual([true, true]);
    for (const g of grants) expect(g.renewInMs).toBeLessThanOrEqual(PROBE_RENEW_MS);
  });

  it('once reported, the limit binds: share × limit at HEADROOM, shared by weight', () => {
    const { grants } = run([
      { at: 0, ask: ask('a', share) },
      { at: 3, ask: ask('b', share) },
      { at: 8, ask: ask('a', { ...share, platform_limit: 200 }) },
      { at: 150, ask: ask('b', { ...share, platform_limit: 200 }) },
    ]);
    expect(grants.slice(2).map((g) => g.rate)).toEqual([HEADROOM * 50, HEADROOM * 50]);
    expect(grants.slice(2).every((g) => !g.probe && g.ceiling === HEADROOM * 100)).toBe(true);
  });

  it('answers that carry no limit: a share has none to take a fraction of, and binds nothing', () => {
    const { grants, doc } = run([
      { at: 0, ask: ask('a', share) },
      { at: 8, ask: ask('a', { ...share, platform_limit: null }) },
      { at: 9, ask: ask('b', share) },
    ]);
    expect(doc.platform_limit).toBeNull();
    expect(grants.slice(1).map((g) => g.rate)).toEqual([Infinity, Infinity]);
  });

  it('a process that saw no limit does not undo the one another process reported', () => {
    const { doc, grants } = run([
      { at: 0, ask: ask('a', { ...share, platform_limit: 200 }) },
      { at: 5, ask: ask('b', { ...share, platform_limit: null }) },
    ]);
    expect(doc.platform_limit).toBe(200);
    expect(grants[1].ceiling).toBeCloseTo(HEADROOM * 100);
  });
});

describe('what the fleet learnt from 429s outlives a probe', () => {
  // A probe's ceiling (PROBE_RPS) is no configured limit: the learnt rate is dropped only once it no longer binds
  // what max_rps and a known limit allow, or a share joining a fleet that had learnt 40/s would forget it.
  it.each<[string, Partial<LeaseAsk>]>([
    ['a share joins, its limit not known yet', share],
    ['a share joins and its process reports a 429 in the same ask', { ...share, refused: 1 }],
  ])('%s: the learnt rate is kept', (_, joining) => {
    const learnt = run([
      { at: 0, ask: ask('agent', { used: 50 }) },
      { at: 10, ask: ask('agent', { used: 50, refused: 0 }) },
    ]).doc;
    expect(learnt.learnt).toBeCloseTo(42.5);
    const { doc } = allocate(learnt, ask('apply', joining), 20);
    // kept (grown by the 10 ms since, or cut again by the 429 it reports), not dropped
    expect(doc.learnt).toBeGreaterThan(30);
    expect(doc.learnt).toBeLessThan(43);
  });
});
