// The state file is written piece by piece (document.ts): the pieces joined must be the very text one
// JSON.stringify of the document gives, whatever the state holds.
import { describe, expect, it } from 'vitest';
import { stateDocument, stateText } from '../../src/state/document.js';
import type { StateData } from '../../src/state/state.js';

const many = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `Offer/o${String(n - i).padStart(6, '0')}`,
      { kind: 'Offer', id: `offer_${i}`, fields: { name: `Offer ${i}`, 'prices.0.units': '5' } },
    ]),
  );

const cases: Array<[string, StateData]> = [
  ['empty, never written', { format_version: 1, resources: {} }],
  [
    'empty, with lineage and platform',
    {
      format_version: 1,
      lineage: 'l-1',
      serial: 3,
      platform: { origin: 'http://127.0.0.1:1', environment: 'prod' },
      resources: {},
    },
  ],
  ['one entry', { format_version: 1, lineage: 'l', serial: 1, resources: { 'Vod/a': { kind: 'Vod', id: 'v1' } } }],
  [
    'entries out of order, nested fields, a pending create',
    {
      format_version: 1,
      serial: 2,
      resources: {
        'Event/z': { kind: 'Event', pending_since: '2026-11-23T00:00:00Z', existing: ['e1', 'e2'] },
        'Banner/a': {
          kind: 'Banner',
          id: 'b',
          fields: { 'title.en': 'A "quoted"\nline', list: [1, [2, {}], { deep: { deeper: [] } }] },
        },
        'Banner/ä ü': { kind: 'Banner', id: 'u', fields: {} },
      },
    },
  ],
  ['more than one piece', { format_version: 1, lineage: 'l', serial: 9, resources: many(3000) }],
];

describe('the state file text', () => {
  it.each(cases)('%s: the same bytes as one JSON.stringify', (_name, data) => {
    const pieces = [...stateText(data)];
    expect(pieces.join('')).toBe(`${JSON.stringify(stateDocument(data), null, 2)}\n`);
  });
  it('comes in pieces of about 64 KB, not as one string', () => {
    const pieces = [...stateText({ format_version: 1, resources: many(3000) })];
    expect(pieces.length).toBeGreaterThan(5);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(70 * 1024);
  });
});
