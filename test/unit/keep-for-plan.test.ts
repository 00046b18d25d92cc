// keptForPlan: what the plan keeps of a live resource that already matches its document, and that the plan made
// from it is the one made from the whole resource (drift, fields no longer managed, defaults included).
import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { planChanges } from '../../src/plan/build.js';
import { keptForPlan } from '../../src/plan/keep.js';
import type { JsonObject } from '../../src/schema/values.js';
import type { Document, Observed } from '../../src/types.js';

const offerLive = {
  id: 'o1',
  project_id: 'p1',
  name: 'Basic',
  priority: '5',
  billing_partner_offer_id: '',
  applies_to_all: false,
  localized_title: {},
  create_time: '2026-01-01T00:00:00Z',
};
const configLive = {
  id: 'c1',
  project_id: 'p1',
  name: 'Main',
  type: 'CONFIGURATION_TYPE_PLAYER',
  default: true,
  description: 'x',
  labels: {},
};

function observed(kind: string, spec: JsonObject, live: JsonObject | null): Observed {
  const doc: Document = {
    kind,
    name: 'a',
    address: `${kind}/a`,
    id: live ? String(live.id) : undefined,
    spec,
    source: { file: 'a.yaml', index: 0, value: {} },
  };
  return {
    doc,
    desired: spec,
    source: undefined,
    id: doc.id,
    live,
    moved_from: undefined,
    from_state: false,
    adopted_by: undefined,
  };
}

type Case = [string, string, JsonObject, JsonObject | null, Record<string, unknown> | undefined];
const cases: Case[] = [
  ['a matching resource, nothing else read', 'Offer', { project_id: 'p1', name: 'Basic' }, offerLive, undefined],
  [
    'a matching resource, as the last apply left it',
    'Offer',
    { project_id: 'p1', name: 'Basic' },
    offerLive,
    { project_id: 'p1', name: 'Basic' },
  ],
  ['drift since the last apply', 'Offer', { project_id: 'p1', name: 'Basic' }, offerLive, { name: 'Older' }],
  [
    'a field the last apply set, no longer in the document',
    'Offer',
    { project_id: 'p1', name: 'Basic' },
    offerLive,
    { name: 'Basic', priority: '4' },
  ],
  [
    'the default the document does not set',
    'StreamingConfiguration',
    { project_id: 'p1', name: 'Main' },
    configLive,
    undefined,
  ],
  [
    'the default the document sets',
    'StreamingConfiguration',
    { project_id: 'p1', name: 'Main', default: true },
    configLive,
    undefined,
  ],
  ['a resource with a change', 'Offer', { project_id: 'p1', name: 'Premium' }, offerLive, undefined],
  ['nothing live', 'Offer', { project_id: 'p1', name: 'Basic' }, null, undefined],
];

describe('keptForPlan', () => {
  it.each<[string, number, 'desired' | 'whole' | JsonObject | null]>([
    [cases[0][0], 0, 'desired'],
    [cases[1][0], 1, 'desired'],
    [cases[2][0], 2, { project_id: 'p1', name: 'Basic' }],
    [cases[3][0], 3, { project_id: 'p1', name: 'Basic', priority: '5' }],
    [cases[4][0], 4, { project_id: 'p1', name: 'Main', default: true, type: 'CONFIGURATION_TYPE_PLAYER' }],
    [cases[5][0], 5, 'desired'],
    [cases[6][0], 6, 'whole'],
    [cases[7][0], 7, null],
  ])('%s', (_, i, kept) => {
    const [, kind, spec, live, lastApplied] = cases[i];
    const o = observed(kind, spec, live);
    o.live = keptForPlan(defaultRegistry.get(kind)!, o, lastApplied);
    if (kept === 'desired') expect(o.live).toBe(o.desired);
    else if (kept === 'whole') expect(o.live).toBe(live);
    else expect(o.live).toEqual(kept);
  });

  it.each(cases)('the plan is the one made from the whole resource: %s', (_, kind, spec, live, lastApplied) => {
    const plan = (keep: boolean) => {
      const o = observed(kind, spec, live);
      if (keep) o.live = keptForPlan(defaultRegistry.get(kind)!, o, lastApplied);
      return JSON.stringify(
        planChanges([o.doc], new Map([[o.doc.address, o]]), defaultRegistry, { lastApplied: () => lastApplied }),
      );
    };
    expect(plan(true)).toBe(plan(false));
  });
});
