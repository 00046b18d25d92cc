// Export into a directory whose tapedeck.yaml defines environments: the documents are made portable (what ties them
// to the exported environment becomes ${var.NAME} or a reference), their variables are the exported environment's
// (a value it already has under some name keeps that name), and each document is marked as that environment's
// alone, so every other environment's plan leaves it out until someone gives it that environment's values.
import { parseDocument } from 'yaml';
import { isObject, type Json, type JsonObject } from '../schema/values.js';
import type { Portable } from './portable.js';

export interface EnvironmentExport {
  docs: Array<{ kind: string; name: string; environments: string[]; id?: string; spec: JsonObject }>;
  /** variables the environment did not have, to add under its vars: (name -> the exported value) */
  added: Record<string, string>;
}

/** `existing`: the environment's vars in tapedeck.yaml. */
export function forEnvironment(
  portable: Portable,
  envName: string,
  existing: Record<string, unknown>,
): EnvironmentExport {
  const taken = new Map(Object.entries(existing).map(([k, v]) => [k, String(v)]));
  const byValue = new Map<string, string>();
  for (const [k, v] of taken) if (!byValue.has(v)) byValue.set(v, k);
  const renamed = new Map<string, string>();
  const added: Record<string, string> = {};
  for (const v of portable.vars) {
    const same = byValue.get(v.value);
    if (same) {
      renamed.set(v.name, same);
      continue;
    }
    let name = v.name;
    for (let n = 2; taken.has(name); n++) name = `${v.name}_${n}`;
    taken.set(name, v.value);
    byValue.set(v.value, name);
    added[name] = v.value;
    renamed.set(v.name, name);
  }
  const rename = (s: string) =>
    s.replace(/\$\{var\.([A-Za-z0-9_]+)\}/g, (all, n: string) => (renamed.has(n) ? `\${var.${renamed.get(n)}}` : all));
  const docs = portable.docs.map((d) => ({
    kind: d.kind,
    name: d.name,
    environments: [envName],
    ...(d.id !== undefined ? { id: rename(d.id) } : {}),
    spec: renameAll(d.spec, rename) as JsonObject,
  }));
  return { docs, added };
}

function renameAll(v: Json, rename: (s: string) => string): Json {
  if (typeof v === 'string') return rename(v);
  if (Array.isArray(v)) return v.map((x) => renameAll(x, rename));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renameAll(x as Json, rename)]));
  return v;
}

/** tapedeck.yaml's text with `added` under environments.<env>.vars; comments and the rest kept as they were. */
export function withVars(projectText: string, envName: string, added: Record<string, string>): string {
  const doc = parseDocument(projectText);
  for (const [name, value] of Object.entries(added)) doc.setIn(['environments', envName, 'vars', name], value);
  return doc.toString({ lineWidth: 0 });
}
