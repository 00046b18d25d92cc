// Adoption: the live resources tapedeck can find (named by the state, by --id, or listed), written as documents,
// one file per kind, response-only fields and secrets left out, keys in schema order. Planning the exported
// documents right away shows no changes.
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { listSpecOf, readBackOf } from '../kinds/access.js';
import { listAll, unwrap } from '../remote/list.js';
import type { Field } from '../schema/model.js';
import { resourceModel } from '../schema/model.js';
import { isObject, normalize, type Json, type JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import type { State } from '../state/state.js';
import { mapPool } from '../util/pool.js';

export interface ExportTarget {
  kind: string;
  id: string;
  /** the address the state knows it by */
  address?: string;
}

export interface ExportedDoc {
  kind: string;
  name: string;
  id?: string;
  spec: JsonObject;
}

/**
 * Live text as document text: every `${` written `$${`, so a live value that looks like a variable or a reference
 * reads back as itself instead of being filled in by the next plan (a server must not plant interpolations).
 */
function asLiteral<T extends Json | undefined>(v: T): T {
  if (typeof v === 'string') return v.split('${').join('$${') as T;
  if (Array.isArray(v)) return v.map(asLiteral) as T;
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asLiteral(x)])) as T;
  return v;
}

/** A resource's managed fields as a document spec: schema order, no response-only fields, no secrets, no unset. */
export function toSpec(field: Field, v: Json | undefined): Json | undefined {
  if (field.type === 'message' && isObject(v)) {
    const out: JsonObject = {};
    for (const [name, f] of Object.entries(field.props ?? {})) {
      if (f.readOnly || f.secret) continue;
      const x = toSpec(f, v[name]);
      if (x !== undefined) out[name] = x;
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (field.type === 'array' && Array.isArray(v)) {
    // An element with nothing set is still an element: `{}` for an object, so the list keeps its length and shape.
    const items = v.map((x) => toSpec(field.items!, x) ?? (field.items?.type === 'message' ? {} : null));
    return normalize(field, items) === undefined ? undefined : items;
  }
  if (field.type === 'map' && isObject(v)) return asLiteral(normalize(field, sortKeys(v) as Json));
  return asLiteral(normalize(field, v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

const slug = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'resource';

export async function exportLive(registry: Registry, client: Client, state: State, opts: { ids: ExportTarget[]; project?: string; concurrency: number; warn: (m: string) => void }) {
  const found = new Map<string, { k: KindDef; id: string; address?: string; resource: JsonObject }>();
  const keyOf = (k: KindDef, id: string) => `${k.kind} ${id}`;
  const targets: ExportTarget[] = [
    ...Object.entries(state.data.resources).filter(([, e]) => e.id).map(([address, e]) => ({ kind: e.kind, id: e.id!, address })),
    ...opts.ids,
  ];
  // --id kinds are checked where they are parsed; a state entry may name a kind this version does not have.
  const unknown = targets.find((t) => !registry.get(t.kind));
  if (unknown) throw new UserError(`state file ${state.file}: ${unknown.address} is of kind ${unknown.kind}, which this tapedeck does not know (drop it with tapedeck state forget)`);
  await mapPool(targets, opts.concurrency, async (t) => {
    const k = registry.get(t.kind)!;
    const read = readBackOf(k, { id: t.id, key: k.identity.by === 'key' ? t.id : undefined, spec: {} });
    const resource = unwrap(read, (await client.call('GET', read.path)).body, t.id);
    found.set(keyOf(k, t.id), { k, id: t.id, address: t.address, resource });
  });
  for (const k of registry.kinds) {
    const list = listSpecOf(k);
    if (!list) continue;
    // A list the platform refuses (one that needs a project, say) costs that kind's listing, not the export.
    const items = await listAll(client, list, opts.project ? { project_id: opts.project } : {}).catch((e: Error & { line?: () => string }) => {
      opts.warn(`warning: could not list ${k.kind} (${e.line ? e.line() : e.message})${opts.project ? '' : '; --project may help'}`);
      return [];
    });
    for (const r of items) {
      const id = String(r.id);
      if (!found.has(keyOf(k, id))) found.set(keyOf(k, id), { k, id, resource: r });
    }
  }

  const docs: ExportedDoc[] = [];
  const taken = new Set<string>();
  const entries = [...found.values()].sort((a, b) => registry.level(a.k.kind) - registry.level(b.k.kind) || (a.id < b.id ? -1 : 1));
  for (const { k, id, address, resource } of entries) {
    const label = String(resource.name || resource.title || (isObject(resource.localized_name) ? Object.values(resource.localized_name)[0] : '') || id);
    let name = address?.split('/').slice(1).join('/') || slug(label);
    for (let n = 2; taken.has(`${k.kind}/${name}`); n++) name = `${slug(label)}-${n}`;
    taken.add(`${k.kind}/${name}`);
    const spec = (toSpec(resourceModel(k.schema), resource) ?? {}) as JsonObject;
    docs.push({ kind: k.kind, name, ...(k.identity.by === 'id' ? { id: asLiteral(id) } : {}), spec });
    state.set(`${k.kind}/${name}`, { kind: k.kind, id });
  }
  return docs;
}
