// Normalisation by meaning, as tables: what counts as unset, int64 and timestamp spellings, sets.
import { describe, expect, it } from 'vitest';
import { fieldAt, resourceModel } from '../../src/schema/model.js';
import {
  canonicalInt64,
  canonicalTimestamp,
  deepEqual,
  jsonText,
  normalize,
  stableStringify,
  zeroFill,
} from '../../src/schema/values.js';
import { diffSpec, leafPaths, overlay, pick } from '../../src/diff/diff.js';

const offer = resourceModel('offer.schema.json');
const event = resourceModel('event.schema.json');
const policy = resourceModel('policy.schema.json');

describe('canonicalTimestamp', () => {
  it.each([
    ['2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z'],
    ['2026-01-01T10:00:00.000000000Z', '2026-01-01T10:00:00Z'],
    ['2026-01-01T12:00:00+02:00', '2026-01-01T10:00:00Z'],
    ['2026-01-01T10:00:00.123456789Z', '2026-01-01T10:00:00.123456789Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['9999-12-31T23:59:59.999999999Z', '9999-12-31T23:59:59.999999999Z'],
    // What the API (Go's time.RFC3339Nano, protobuf's Timestamp) refuses is no timestamp.
    ['2026-01-01t10:00:00.5z', undefined],
    ['2026-01-01 10:00:00Z', undefined],
    ['2026-01-01T10:00:00.1234567890Z', undefined],
    ['2026-01-01T10:00:00+0200', undefined],
    ['2026-01-01T10:00:00+02', undefined],
    ['2026-01-01T10:00:00', undefined],
    ['2026-12-31T23:59:60Z', undefined],
    ['2026-01-01T24:00:00Z', undefined],
    ['2026-02-29T00:00:00Z', undefined],
    ['2026-04-31T00:00:00Z', undefined],
    ['2026-01-01T10:00:00+24:00', undefined],
    ['0000-01-01T00:00:00Z', undefined],
    ['0001-01-01T00:30:00+01:00', undefined],
    ['9999-12-31T23:59:59-01:00', undefined],
    ['2026-01-01', undefined],
    ['yesterday', undefined],
  ])('%s -> %s', (input, expected) => expect(canonicalTimestamp(input)).toBe(expected));
});

describe('canonicalInt64', () => {
  it.each([
    [10, '10'],
    ['010', '10'],
    ['-0', '0'],
    [2 ** 53 - 1, '9007199254740991'],
    ['9007199254740993', '9007199254740993'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    // A number beyond 2^53 may not be the integer that was written; beyond 2^63 is no int64.
    [2 ** 53, undefined],
    [1e21, undefined],
    ['9223372036854775808', undefined],
    ['-9223372036854775809', undefined],
    [1.5, undefined],
    ['1e3', undefined],
  ])('%j -> %j', (input, expected) => expect(canonicalInt64(input)).toBe(expected));
});

describe('normalize', () => {
  it.each([
    ['name', '', undefined],
    ['name', 'x', 'x'],
    ['priority', '0', undefined],
    ['priority', 10, '10'],
    ['priority', '010', '10'],
    ['applies_to_all', false, undefined],
    ['visibility', 'VISIBILITY_UNSPECIFIED', undefined],
    ['visibility', 'VISIBILITY_HIDDEN', 'VISIBILITY_HIDDEN'],
    ['localized_title', {}, undefined],
    ['offer_prices', [], undefined],
    ['target', null, undefined],
    ['target', { entity_ids: [], content_start_time: null }, undefined],
    ['target', { content_start_time: '2026-01-01T12:00:00+02:00' }, { content_start_time: '2026-01-01T10:00:00Z' }],
  ])('offer.%s %j -> %j', (path, input, expected) => {
    expect(normalize(fieldAt(offer, path), input)).toEqual(expected);
  });

  it('bindings and account ids compare as sets', () => {
    const f = fieldAt(policy, 'policy.bindings');
    const a = normalize(f, [
      { role_id: 'r', account_ids: ['b', 'a'] },
      { role_id: 'o', account_ids: [] },
    ]);
    const b = normalize(f, [
      { role_id: 'o' },
      { role_id: 'r', account_ids: ['a', 'b'], all_organization_accounts: false },
    ]);
    expect(a).toEqual(b);
  });
});

describe('diffSpec', () => {
  const live = zeroFill(offer, { id: 'o', name: 'Basic', priority: '5', target: { event_ids: ['e1'] } }) as Record<
    string,
    never
  >;
  it.each([
    [{ name: 'Basic', priority: 5 }, []],
    [{ name: 'Basic', priority: '5', applies_to_all: false, visibility: 'VISIBILITY_UNSPECIFIED' }, []],
    [{ name: 'Premium' }, ['name']],
    [{ priority: null }, ['priority']],
    [{ target: { event_ids: ['e1'], creative_work_ids: ['c'] } }, ['target.creative_work_ids']],
    [{ target: null }, ['target']],
    [{ offer_prices: [{ price: { units: 1 } }] }, ['offer_prices']],
    [{ localized_title: {} }, []],
  ])('%j -> mask %j', (desired, mask) => {
    expect(diffSpec(offer, desired as never, live).map((d) => d.path)).toEqual(mask);
  });

  it('descends into nested messages for the deepest path', () => {
    const e = zeroFill(event, { physical_location: { city: 'A', coordinates: { latitude: 1 } } }) as Record<
      string,
      never
    >;
    expect(
      diffSpec(event, { physical_location: { city: 'B', coordinates: { latitude: 1, longitude: 2 } } }, e).map(
        (d) => d.path,
      ),
    ).toEqual(['physical_location.city', 'physical_location.coordinates.longitude']);
  });
});

describe('request bodies', () => {
  it('pick keeps exactly the masked paths, leaving cleared ones out', () => {
    expect(
      pick({ name: 'x', target: { event_ids: ['e'], entity_ids: ['n'] }, priority: null }, [
        'name',
        'target.event_ids',
        'priority',
      ]),
    ).toEqual({ name: 'x', target: { event_ids: ['e'] } });
  });
  it('leafPaths descends into messages only', () => {
    expect(
      leafPaths(event, { title: 't', physical_location: { city: 'c' }, fields: { a: 1 }, video_ids: ['v'] }),
    ).toEqual(['title', 'physical_location.city', 'fields', 'video_ids']);
  });
  it('overlay keeps live fields the documents leave out', () => {
    const model = resourceModel('action-configuration.schema.json');
    expect(
      overlay(
        model,
        { annotation_type_id: 'a', configuration: { x: {} }, conditions: [{ confidence_threshold: 1 }] },
        { configuration: { y: {} } },
      ),
    ).toEqual({ annotation_type_id: 'a', configuration: { y: {} }, conditions: [{ confidence_threshold: 1 }] });
  });
});

describe('paths', async () => {
  const { fillPath } = await import('../../src/kinds/paths.js');
  it.each([
    ['/streaming/vods/v1/{id}', { id: 'v 1/é?#%' }, '/streaming/vods/v1/v%201%2F%C3%A9%3F%23%25'],
    [
      '/iam/auth/v1/policies/{key}',
      { key: 'proj 1/proj 1/project' },
      '/iam/auth/v1/policies/proj%201/proj%201/project',
    ],
    ['/iam/auth/v1/policies/{key}', { key: '${Event/e.id}/p/event' }, '/iam/auth/v1/policies/${Event/e.id}/p/event'],
    ['/cms/events/v1/{source}/duplicate', { source: '..' }, '/cms/events/v1/%2E%2E/duplicate'],
    ['/iam/auth/v1/policies/{key}', { key: 'a/../organization' }, '/iam/auth/v1/policies/a/%2E%2E/organization'],
  ])('%s with %j -> %s', (template, values, expected) => {
    expect(fillPath(template, { spec: {}, ...values })).toBe(expected);
  });
});

describe('deepEqual means equal JSON texts with sorted keys', () => {
  const sameText = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);
  it.each<[string, unknown, unknown, boolean]>([
    ['same scalars', 'a', 'a', true],
    ['number and its string', 1, '1', false],
    ['unset and null', undefined, null, true],
    ['NaN reads as null', NaN, null, true],
    ['keys in another order', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ['a key whose value is undefined reads as null', { a: 1, b: undefined }, { a: 1, b: null }, true],
    ['and is not absent', { a: 1, b: undefined }, { a: 1 }, false],
    ['null is not absent', { a: null }, {}, false],
    ['the same number of keys, other names', { k: null }, { j: null }, false],
    ['array order counts', [1, 2], [2, 1], false],
    ['empty object and empty array', {}, [], false],
    ['undefined in an array reads as null', [undefined], [null], true],
    ['nested difference', { a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }, false],
  ])('%s', (_, a, b, equal) => {
    expect(deepEqual(a, b)).toBe(equal);
    expect(sameText(a, b)).toBe(equal);
  });

  it('agrees with comparing the texts on 5,000 random pairs of near-equal values', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const leaves = [null, undefined, 0, 1, '1', '', 'a', true, false, NaN];
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 2 || r < 0.5) return leaves[Math.floor(random() * leaves.length)];
      if (r < 0.75) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 3) }, () => [
          ['a', 'b', 'c'][Math.floor(random() * 3)],
          value(depth + 1),
        ]),
      );
    };
    let equalPairs = 0;
    for (let i = 0; i < 5000; i++) {
      const a = value(0);
      const b = random() < 0.5 ? JSON.parse(JSON.stringify([a]))[0] : value(0);
      expect(deepEqual(a, b)).toBe(sameText(a, b));
      if (sameText(a, b)) equalPairs++;
    }
    expect(equalPairs).toBeGreaterThan(1000); // the table above is not all unequal pairs
  });
});

describe('jsonText', () => {
  it.each([
    [
      { name: 'It`s basic\u200b\u200e\u200f\u202e|evil' },
      '{\n  "name": "It`s basic\\u200b\\u200e\\u200f\\u202e|evil"\n}\n',
    ],
    [['Line\u2028sep\u2029', 'x\u007f\u0085\ufeff'], '[\n  "Line\\u2028sep\\u2029",\n  "x\\u007f\\u0085\\ufeff"\n]\n'],
    [{ 'key\u2066': 'EU\nR\u001b[31m' }, '{\n  "key\\u2066": "EU\\nR\\u001b[31m"\n}\n'],
    [{ plain: 'café ☕ 日本' }, '{\n  "plain": "café ☕ 日本"\n}\n'],
  ])('writes %j with every hidden character escaped, and reads back as the same value', (value, text) => {
    expect(jsonText(value)).toBe(text);
    expect(JSON.parse(jsonText(value))).toEqual(value);
  });
});
