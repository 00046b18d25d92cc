// The events a write touches, for the change windows that hold changes back while an event is live: the event
// itself (a kind marked x-live-event), and the event ids of the fields marked x-live-link (an offer's or a
// ruleset's target), as the platform has them and as the document wants them. Data in the schemas, not code per kind.
import type { KindDef } from '../kinds/types.js';
import { resourceModel, type Field } from '../schema/model.js';
import { isObject, type Json } from '../schema/values.js';
import type { Change, Observed } from '../types.js';

const linkPaths = new WeakMap<Field, string[][]>();

/** The paths (through messages) of a model's x-live-link fields, found once per model. */
function pathsOf(model: Field): string[][] {
  let paths = linkPaths.get(model);
  if (paths) return paths;
  paths = [];
  const walk = (f: Field, at: string[]) => {
    if (f.liveLink) paths!.push(at);
    for (const [k, sub] of Object.entries(f.type === 'message' ? (f.props ?? {}) : {})) walk(sub, [...at, k]);
  };
  walk(model, []);
  linkPaths.set(model, paths);
  return paths;
}

function idsAt(value: Json | undefined, path: string[]): string[] {
  let at: Json | undefined = value;
  for (const p of path) at = isObject(at) ? at[p] : undefined;
  // An id still to be made (${Event/x.id}: an event created in the same apply) is of no live event.
  return Array.isArray(at) ? at.filter((x): x is string => typeof x === 'string' && !x.includes('${')) : [];
}

/** The live events a change to `o` touches; undefined where it touches none (or sends nothing). */
export function liveEventsOf(k: KindDef, o: Observed, action: Change['action']): string[] | undefined {
  if (!['update', 'replace', 'restore', 'create'].includes(action)) return undefined;
  const model = resourceModel(k.schema);
  const ids = new Set<string>();
  if (model.liveEvent && o.id && action !== 'create') ids.add(o.id);
  for (const path of pathsOf(model)) {
    for (const id of idsAt(o.live, path)) ids.add(id);
    for (const id of idsAt(o.desired, path)) ids.add(id);
  }
  return ids.size ? [...ids].sort() : undefined;
}
