// The fleet bucket's one rule (src/budget/allocate.ts), as tables: the ceiling, weighted water-filling, grants that
// never add up past the ceiling, leases that end, 429s that cut once per generation, and the learnt rate's growth.
import { describe, expect, it } from 'vitest';
import {
  allocate,
  ceilingOf,
  CUT,
  emptyBucket,
  fairShares,
  HEADROOM,
  LEASE_MS,
  PROBE_RPS,
  type BucketDoc,
  type LeaseAsk,
} from '../../src/budget/allocate.js';
import { fallbackRate } from '../../src/budget/gate.js';
import { leaseAsk } from '../helpers/budget.js';

const ask = (id: string, extra: Partial<LeaseAsk> = {}) => leaseAsk(id, { max_rps: 100, ...extra });
const total = (doc: BucketDoc) => Object.values(doc.holders).reduce((s, h) => s + (h.rate ?? Infinity), 0);

describe('the ceiling', () => {
  it.each([
    ['max_rps alone', {}, [{ max_rps: 200 }], HEADROOM * 200],
    ['the lowest max_rps of the holders', {}, [{ max_rps: 200 }, { max_rps: 100 }], HEADROOM * 100],
    ['share of the published limit', { platform_limit: 200 }, [{ share: 0.5 }], HEADROOM * 100],
    ['share before an answer told the limit: the probe', {}, [{ share: 0.5 }], PROBE_RPS],
    ['share where the answers carry no limit: no ceiling', { platform_limit: null }, [{ share: 0.5 }], Infinity],
    ['the learnt rate when lower', { learnt: 50 }, [{ max_rps: 200 }], 50],
  ])('%s', (_, doc, holders, expected) => {
    expect(ceilingOf({ ...emptyBucket(), ...doc }, holders)).toBeCloseTo(expected);
  });
});

describe('weighted water-filling', () => {
  it.each([
    ['equal weights, unbounded wants', [1, 1], [Infinity, Infinity], 100, [50, 50]],
    ['apply 4 beside plan 1', [4, 1], [Infinity, Infinity], 100, [80, 20]],
    ['a holder that wants less leaves the rest', [1, 1], [10, Infinity], 100, [10, 90]],
    ['no ceiling: each its want', [1, 1], [Infinity, 5], Infinity, [Infinity, 5]],
  ])('%s', (_, weights, wants, capacity, expected) => {
    const shares = fairShares(
      weights.map((w, i) => ({ id: String(i), weight: w, want: wants[i] })),
      capacity,
    );
    expect(weights.map((_w, i) => shares.get(String(i)))).toEqual(expected);
  });
});

describe('grants', () => {
  it('a lone holder gets the ceiling; a newcomer gets what is left, then its share once the first renews', () => {
    const a1 = allocate(undefined, ask('a'), 0);
    expect(a1.grant.rate).toBeCloseTo(95);
    const b1 = allocate(a1.doc, ask('b'), 100);
    expect(b1.grant.rate).toBe(0);
    // Held back: told to ask again about when the first renews, not a whole lease later.
    expect(b1.grant.renewInMs).toBeLessThan((LEASE_MS * 2) / 3);
    const a2 = allocate(b1.doc, ask('a'), 2000);
    expect(a2.grant.rate).toBeCloseTo(47.5);
    const b2 = allocate(a2.doc, ask('b'), 2100);
    expect(b2.grant.rate).toBeCloseTo(47.5);
    expect(total(b2.doc)).toBeLessThanOrEqual(95 + 1e-9);
  });

  it('never adds up past the ceiling, whatever the order of asks', () => {
    let doc: BucketDoc | undefined;
    for (let t = 0; t < 40; t++) {
      const id = String((t * 7) % 5);
      doc = allocate(doc, ask(id, { weight: 1 + (t % 3), role: 'apply' }), t * 300).doc;
      expect(total(doc)).toBeLessThanOrEqual(95 + 1e-9);
    }
  });

  it('a lease that ends unrenewed gives its rate back (a process that died)', () => {
    const a = allocate(undefined, ask('a'), 0);
    const b = allocate(a.doc, ask('b'), 10);
    expect(b.grant.rate).toBe(0);
    const later = allocate(b.doc, ask('b'), LEASE_MS + 1);
    expect(Object.keys(later.doc.holders)).toEqual(['b']);
    expect(later.grant.rate).toBeCloseTo(95);
  });

  it('renewals are spread by holder: processes granted together do not renew in step (each would cost a CAS)', () => {
    let doc: BucketDoc | undefined;
    const due = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((id) => {
      const r = allocate(doc, ask(id, { max_rps: 10_000 }), 0);
      doc = r.doc;
      return r.grant.renewInMs;
    });
    expect(new Set(due.map(Math.round)).size).toBeGreaterThan(4);
    for (const ms of due) expect(ms).toBeGreaterThanOrEqual(0.75 * (LEASE_MS - 1000));
  });

  it('a release ends the lease at once', () => {
    const a = allocate(undefined, ask('a'), 0);
    const gone = allocate(a.doc, ask('a', { release: true }), 10);
    expect(gone.doc.holders).toEqual({});
  });
});

describe('shared learning', () => {
  it('a 429 under the current generation cuts the learnt rate to CUT of what the fleet sent, once', () => {
    const a = allocate(undefined, ask('a', { max_rps: 1000 }), 0);
    const b = allocate(a.doc, ask('b', { max_rps: 1000, used: 100 }), 10);
    const cut = allocate(b.doc, ask('a', { max_rps: 1000, used: 100, refused: 0 }), 1000);
    expect(cut.doc.learnt).toBeCloseTo(CUT * 200);
    expect(cut.doc.generation).toBe(1);
    // The other's 429 of the same overshoot (generation 0) is news acted on.
    const again = allocate(cut.doc, ask('b', { max_rps: 1000, used: 100, refused: 0 }), 1010);
    expect(again.doc.learnt).toBeCloseTo(CUT * 200, 0);
    expect(again.doc.generation).toBe(1);
  });

  it('the learnt rate grows back for everyone, and is dropped once the configured ceiling binds again', () => {
    const doc = { ...emptyBucket(), learnt: 50, learnt_at: 0 };
    const grown = allocate(doc, ask('a'), 10_000).doc;
    expect(grown.learnt).toBeGreaterThan(50);
    const back = allocate(doc, ask('a'), 120_000).doc;
    expect(back.learnt).toBeUndefined();
  });

  it('a Retry-After pauses every grant until then', () => {
    const a = allocate(undefined, ask('a', { retry_after_ms: 2000 }), 0);
    expect(a.grant.rate).toBe(0);
    expect(a.grant.pausedMs).toBe(2000);
    expect(allocate(a.doc, ask('b'), 500).grant.rate).toBe(0);
  });
});

describe('the fallback rate', () => {
  it.each([
    ['its weighted part of the last ceiling', { rate: 95, ceiling: 95, weights: 4 }, 1, 23.75],
    ['never above its last grant', { rate: 10, ceiling: 95, weights: 2 }, 1, 10],
    ['no grant yet: half of max_rps', undefined, 1, 50],
  ])('%s', (_, last, weight, expected) => {
    const grant = last && { ...last, forMs: 0, renewInMs: 0, generation: 0, pausedMs: 0 };
    expect(fallbackRate(grant, weight, 100)).toBeCloseTo(expected);
  });
});
