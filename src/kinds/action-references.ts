// The action configuration reference rules, shared by `validate` and the emulator: `$<action>.<output>` must name
// another action of the same configuration, without cycles; `$secret.<id>` names a platform secret and is allowed.
import { isObject, type Json } from '../schema/values.js';
import { findCycle } from '../util/graph.js';

const REF = /^\$([A-Za-z0-9_-]+)\.([A-Za-z0-9_.-]+)$/;

/** Every `$<action>.<output>` string inside a value, as [action, output]. */
export function actionReferences(v: Json | undefined): Array<[string, string]> {
  if (typeof v === 'string') {
    const m = REF.exec(v);
    return m && m[1] !== 'secret' ? [[m[1], m[2]]] : [];
  }
  if (Array.isArray(v)) return v.flatMap(actionReferences);
  if (isObject(v)) return Object.values(v).flatMap(actionReferences);
  return [];
}

/** References must name another action of the same configuration and must not form a cycle. */
export function actionConfigurationProblems(configuration: Json | undefined): Array<[action: string, message: string]> {
  if (!isObject(configuration)) return [];
  const problems: Array<[string, string]> = [];
  const edges = new Map<string, string[]>();
  for (const [action, inputs] of Object.entries(configuration)) {
    const deps = actionReferences(inputs).map(([a]) => a);
    for (const d of deps) {
      if (d === action) problems.push([action, `action ${action} refers to its own output ($${d})`]);
      else if (!(d in configuration))
        problems.push([action, `action ${action} refers to $${d}, which is not an action of this configuration`]);
    }
    edges.set(
      action,
      deps.filter((d) => d !== action && d in configuration),
    );
  }
  const cycle = findCycle(edges);
  if (cycle) problems.push([cycle[0], `actions form a reference cycle: ${cycle.join(' -> ')}`]);
  return problems;
}
