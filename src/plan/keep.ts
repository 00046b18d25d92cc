// What the plan needs of a live resource that already matches its document: planFrom's projection
// (plan/plan-from.ts), which reading applies as soon as each document is read. An API resource carries every
// field, most of them defaults: kept whole until the plan is made, they were much of a large plan's memory
// (docs/performance.md), alive long enough to reach the old generation. The plan made from what is kept is the same
// (test/unit/keep-for-plan.test.ts, and every scenario is planned both ways).
import type { KindDef } from '../kinds/types.js';
import { diffSpec } from '../diff/diff.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { Observed } from '../types.js';
import { identityFields } from '../resolve/identity.js';
import { driftOf } from './fingerprint.js';

/** The fields the plan reads of a kind's matching resources whatever the document sets, as the kind declares
 *  them: its identity (x-identity) and its uniqueness rule's (`uniqueWhen`). Found once per kind. */
const declared = new WeakMap<KindDef, string[]>();
export function fieldsAlwaysRead(k: KindDef): string[] {
  let fields = declared.get(k);
  if (!fields) {
    const rules = (k.uniqueWhen ?? []).flatMap((u) => [u.when, ...u.fields]);
    declared.set(k, (fields = [...new Set([...identityFields(resourceModel(k.schema)), ...rules])]));
  }
  return fields;
}

/**
 * What the plan keeps of `o`'s live resource. A resource with something to change is kept whole: its write is
 * built from it, and fingerprinted. One that matches is replaced by the document's own values where nothing else
 * of it is read: no drift since the last apply (with either), and the same answer to the kind's uniqueness rule
 * (is it the default?). Otherwise the fields the plan reads are kept: those the document sets, those the kind
 * declares (`fieldsAlwaysRead`), and those the last apply set.
 */
export function keptForPlan(k: KindDef, o: Observed, lastApplied?: Record<string, unknown>): JsonObject | null {
  const live = o.live;
  if (!live || diffSpec(resourceModel(k.schema), o.desired, live).length) return live;
  const rules = k.uniqueWhen ?? [];
  const standsFor =
    rules.every((u) => (o.desired[u.when] === true) === (live[u.when] === true)) &&
    !driftOf(k.schema, live, lastApplied).length &&
    !driftOf(k.schema, o.desired, lastApplied).length;
  if (standsFor) return o.desired;
  const kept: JsonObject = {};
  const keep = (field: string) => {
    if (live[field] !== undefined) kept[field] = live[field];
  };
  for (const field of Object.keys(o.desired)) keep(field);
  for (const field of fieldsAlwaysRead(k)) keep(field);
  for (const path of Object.keys(lastApplied ?? {})) keep(path.split('.')[0]);
  return kept;
}
