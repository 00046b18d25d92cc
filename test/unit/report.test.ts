// The text plan's rendering of a change, as a table of cases.
import { describe, expect, it } from 'vitest';
import { renderChange } from '../../src/report/text.js';
import type { Change, DiffEntry } from '../../src/types.js';

const update = (diff: DiffEntry[]): Change => ({
  address: 'Offer/o', kind: 'Offer', action: 'update', id: 'o1', update_mask: diff.map((d) => d.path),
  request: { method: 'PATCH', path: '/monetization/offers/v1/o1' }, diff,
});

describe('renderChange', () => {
  it.each([
    ['a scalar', { path: 'name', before: 'A', after: 'B' }, ['      ~ name: "A" → "B"']],
    ['an unset value', { path: 'name', before: undefined, after: 'B' }, ['      ~ name: (unset) → "B"']],
    ['a reference not known yet', { path: 'target.event_ids', before: undefined, after: ['${Event/e.id}'] }, ['      ~ target.event_ids: (unset) → (known after apply)']],
    ['values added to and removed from a list', { path: 'country_codes', before: ['DE', 'NL'], after: ['BE', 'DE'] }, ['      ~ country_codes:', '          - "NL"', '          + "BE"']],
    ['a list reordered', { path: 'video_ids', before: ['a', 'b'], after: ['b', 'a'] }, ['      ~ video_ids:', '          (same values, new order)']],
    ['a field inside a list of objects', { path: 'offer_prices', before: [{ price: { units: '4' } }], after: [{ price: { units: '5' } }] }, ['      ~ offer_prices:', '          ~ /0/price/units: "4" → "5"']],
    ['a key of a map', { path: 'configuration', before: { a: { x: 1 } }, after: { a: { x: 1 }, b: {} } }, ['      ~ configuration:', '          + /b: {}']],
  ])('%s', (_, entry, lines) => {
    const out = renderChange(update([entry as DiffEntry]));
    expect(out.slice(1, -1)).toEqual(lines);
    expect(out[0]).toBe('  ~ Offer/o (o1) will be updated');
  });

  it('caps long inner diffs', () => {
    const before = Array.from({ length: 20 }, (_, i) => ({ n: i }));
    const after = before.map((x) => ({ n: x.n + 1 }));
    const out = renderChange(update([{ path: 'offer_prices', before, after }]));
    expect(out).toContain('          … 12 more');
  });
});
