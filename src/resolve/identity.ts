// A resource's identifying fields (x-identity: the project it belongs to), which no update can change: a document
// that moves one is a replacement.
import { resourceModel } from '../schema/model.js';
import { deepEqual, normalize, type Json } from '../schema/values.js';
import type { Observed } from '../types.js';

/** The identifying fields (x-identity: a project) whose desired value is not the live resource's: [field, live, desired]. */
export function identityMoved(
  model: ReturnType<typeof resourceModel>,
  o: Observed,
): Array<[string, Json | undefined, Json | undefined]> {
  const out: Array<[string, Json | undefined, Json | undefined]> = [];
  for (const f of identityFields(model)) {
    if (o.desired[f] === undefined) continue;
    const field = model.props![f];
    const [was, now] = [normalize(field, o.live?.[f]), normalize(field, o.desired[f])];
    if (!deepEqual(was ?? null, now ?? null)) out.push([f, was, now]);
  }
  return out;
}

/** The identifying fields of a model, found once per model: every change of a kind asks. */
const identities = new WeakMap<object, string[]>();
export function identityFields(model: ReturnType<typeof resourceModel>): string[] {
  let fields = identities.get(model);
  if (!fields)
    identities.set(
      model,
      (fields = Object.entries(model.props ?? {})
        .filter(([, f]) => f.identity)
        .map(([name]) => name)),
    );
  return fields;
}
