// The emulator's answer text: the same as JSON.stringify, with stored (frozen) resources' text made once.
import { describe, expect, it } from 'vitest';
import { deepFreeze, toJson } from '../../src/emulator/json.js';

describe('toJson', () => {
  const stored = deepFreeze({
    id: 'o1',
    name: 'A "quoted" name',
    offer_prices: [{ price: { units: '5', nanos: 0 } }],
    empty: {},
    none: null,
  });
  it.each([
    ['a scalar', 'x'],
    ['null', null],
    ['a plain object with undefined fields', { a: 1, b: undefined, c: [1, undefined, 'x'] }],
    ['a stored resource', stored],
    ['a list page of stored resources', { offers: [stored, stored], next_page_token: '' }],
    ['a wrapper around one', { offer: stored }],
    ['unicode and escapes', { s: 'ü\n\t\u2028', n: -1.5e-7 }],
  ])('%s', (_, v) => expect(toJson(v)).toBe(JSON.stringify(v)));

  it('stored resources are frozen all the way down: a write has to replace them', () => {
    expect(() => {
      (stored.offer_prices[0].price as { units: string }).units = '6';
    }).toThrow(TypeError);
    expect(toJson(stored)).toBe(JSON.stringify(stored));
  });
});
