// Addresses sort as a person reads them: numbers inside by their value, the rest as before (code units).
import { describe, expect, it } from 'vitest';
import { naturalCompare } from '../../src/plan/order.js';

describe('naturalCompare', () => {
  it.each([
    [
      ['Offer/bulk-10', 'Offer/bulk-2', 'Offer/bulk-1'],
      ['Offer/bulk-1', 'Offer/bulk-2', 'Offer/bulk-10'],
    ],
    [
      ['a10b2', 'a10b10', 'a9b99'],
      ['a9b99', 'a10b2', 'a10b10'],
    ],
    [
      ['x-010', 'x-9', 'x-10'],
      ['x-9', 'x-010', 'x-10'],
    ],
    [
      ['Offer/b', 'Event/a', 'Offer/a'],
      ['Event/a', 'Offer/a', 'Offer/b'],
    ],
    [
      ['bulk', 'bulk-1', 'bul'],
      ['bul', 'bulk', 'bulk-1'],
    ],
    [
      ['v2', 'v', 'v02'],
      ['v', 'v02', 'v2'],
    ],
  ])('%j sorts as %j', (input, expected) => {
    expect([...input].sort(naturalCompare)).toEqual(expected);
  });

  it('is a total order: antisymmetric on every pair', () => {
    const xs = ['a1', 'a01', 'a001', 'a1b', 'a10', 'a', 'b', '1', '01', ''];
    for (const x of xs)
      for (const y of xs) expect(Math.sign(naturalCompare(x, y)) + Math.sign(naturalCompare(y, x))).toBe(0);
  });
});
