// What the plan keeps of a live resource that already matches its document, as soon as the document is read. An
// API resource carries every field, most of them defaults: kept whole until the plan is made, they were much of a
// large plan's memory (docs/performance.md), alive long enough to reach the old generation. The plan made from
// what is kept is the same (test/unit/keep-for-plan.test.ts, and every scenario is planned both ways).
import type { KindDef } from '../kinds/types.js';
import { diffSpec } from '../diff/diff.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { Observed } from '../types.js';
import { identityFields } from './build.js';
import { driftOf } from './fingerprint.js';

/**
 * A resource with something to change is kept whole: its write is built from it, and fingerprinted. One that
 * matches is replaced by the document's own values where nothing else of it is read: no drift since the last
 * apply (with either), and the same answer to the kind's uniqueness rule (is it the default?). Otherwise the
 * fields the plan reads are kept: those the document sets, its identity, the rule's, and those the last apply set.
 */
export function keepForPlan(k: KindDef, o: Observed, lastApplied?: Record<string, unknown>): void {
  const live = o.live;
  const model = resourceModel(k.schema);
  if (!live || diffSpec(model, o.desired, live).length) return;
  const rules = k.uniqueWhen ?? [];
  const standsFor = rules.every((u) => (o.desired[u.when] === true) === (live[u.when] === true)) &&
    !driftOf(k.schema, live, lastApplied).length && !driftOf(k.schema, o.desired, lastApplied).length;
  if (standsFor) {
    o.live = o.desired;
    return;
  }
  const kept: JsonObject = {};
  const keep = (field: string) => {
    if (live[field] !== undefined) kept[field] = live[field];
  };
  for (const field of Object.keys(o.desired)) keep(field);
  for (const field of identityFields(model)) keep(field);
  for (const u of rules) [u.when, ...u.fields].forEach(keep);
  for (const path of Object.keys(lastApplied ?? {})) keep(path.split('.')[0]);
  o.live = kept;
}
