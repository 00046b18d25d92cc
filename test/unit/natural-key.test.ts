// The natural key matching behind "look before creating": which live resources count as the same as a document.
import { describe, expect, it } from 'vitest';
import { byNaturalKey, keyKnown, naturalKeyFields } from '../../src/live/duplicates.js';
import { naturalKeyOf } from '../../src/live/list.js';
import type { JsonObject } from '../../src/schema/values.js';

/** The ids of the live resources a desired one matches by its kind's natural key. */
function matches(schema: string, desired: JsonObject, live: JsonObject[]): string[] {
  const fields = naturalKeyFields(schema)!;
  return (byNaturalKey(schema, fields, live).get(naturalKeyOf(schema, fields, desired)) ?? []).map((r) => String(r.id));
}

describe('natural keys', () => {
  it.each([
    ['offer.schema.json', ['project_id', 'name']],
    ['video-protection-ruleset.schema.json', ['project_id', 'name']],
    ['event.schema.json', ['project_id', 'title', 'start_time']],
    ['content-type.schema.json', ['project_id', 'base_type', 'name']],
    ['creative-work.schema.json', ['project_id', 'title']],
    ['standing-phase.schema.json', undefined],
  ])('%s declares %j', (schema, fields) => {
    expect(naturalKeyFields(schema)).toEqual(fields);
  });

  const offers = [
    { id: 'a', project_id: 'p', name: 'Premium', priority: '1' },
    { id: 'b', project_id: 'q', name: 'Premium' },
    { id: 'c', project_id: 'p', name: 'premium' },
    { id: 'd', project_id: 'p', name: 'Premium', priority: '9' },
  ];
  const events = [
    { id: 'e1', project_id: 'p', title: 'Final', start_time: '2026-06-01T20:00:00Z' },
    { id: 'e2', project_id: 'p', title: 'Final', start_time: '2026-06-02T20:00:00Z' },
  ];
  const types = [
    { id: 't1', project_id: 'p', base_type: 'BASE_TYPE_EVENT', name: 'Match' },
    { id: 't2', project_id: 'p', base_type: 'BASE_TYPE_CREATIVE_WORK', name: 'Match' },
  ];
  it.each([
    [
      'same name and project, other fields differ: both',
      'offer.schema.json',
      { project_id: 'p', name: 'Premium', priority: 3 },
      offers,
      ['a', 'd'],
    ],
    ['names compare exactly (case counts)', 'offer.schema.json', { project_id: 'p', name: 'premium' }, offers, ['c']],
    ['another project is another resource', 'offer.schema.json', { project_id: 'q', name: 'Premium' }, offers, ['b']],
    ['no live resource with the name', 'offer.schema.json', { project_id: 'p', name: 'Basic' }, offers, []],
    [
      'start times compare as instants',
      'event.schema.json',
      { project_id: 'p', title: 'Final', start_time: '2026-06-01T22:00:00+02:00' },
      events,
      ['e1'],
    ],
    [
      'fractional zeros are the same instant',
      'event.schema.json',
      { project_id: 'p', title: 'Final', start_time: '2026-06-02T20:00:00.000Z' },
      events,
      ['e2'],
    ],
    [
      'same title another day: none',
      'event.schema.json',
      { project_id: 'p', title: 'Final', start_time: '2026-06-03T20:00:00Z' },
      events,
      [],
    ],
    [
      'a content type is its base type and name',
      'content-type.schema.json',
      { project_id: 'p', base_type: 'BASE_TYPE_EVENT', name: 'Match' },
      types,
      ['t1'],
    ],
  ])('%s', (_, schema, desired, live, ids) => {
    expect(matches(schema, desired as JsonObject, live as JsonObject[])).toEqual(ids);
  });

  it.each([
    [{ project_id: 'p', name: 'Premium' }, undefined, true],
    [{ project_id: 'p' }, undefined, false],
    [{ project_id: 'p', name: '' }, undefined, false],
    [{ project_id: '${Project/x.id}', name: 'Premium' }, undefined, false],
    [{ project_id: 'p', name: 'Copy of %@' }, '%@', false],
    [{ project_id: 'p', name: 'Copy of %@' }, undefined, true],
  ])('the key of %j (placeholder %s) can be looked for now: %s', (desired, placeholder, known) => {
    expect(keyKnown(['project_id', 'name'], desired as JsonObject, placeholder)).toBe(known);
  });
});
