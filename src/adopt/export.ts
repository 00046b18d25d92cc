// Adoption: the live resources tapedeck can find (named by the state, by --id, or listed), written as documents,
// one file per kind, response-only fields and secrets left out, keys in schema order. Planning the exported
// documents right away shows no changes. Into a directory that already holds documents, only what none of them
// manages is written, and no address the documents or the state use is bound to another resource.
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { specField } from '../kinds/paths.js';
import { naturalKeyOf } from '../live/list.js';
import type { Field } from '../schema/model.js';
import { fieldAt, keyParts, resourceModel } from '../schema/model.js';
import { isObject, normalize, type Json, type JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import type { State } from '../state/state.js';
import type { Document } from '../types.js';
import {
  exportTargets,
  keyOf,
  listEveryKind,
  readEach,
  type ExportOptions,
  type ExportTarget,
  type Found,
} from './export-read.js';

export type { ExportTarget } from './export-read.js';

/** A live resource left out because a document already manages it. */
export interface Skipped {
  kind: string;
  id: string;
  /** the document's address */
  by: string;
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
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

/**
 * A key kind's resource named by its key, part by part (x-ref-parts): a part naming an exported resource by that
 * resource's name, the project and the organization by those words, each word once. `evt_1/proj_a/event` of the
 * exported event `the-final` is `the-final-project-event`, `proj_a/proj_a/project` is `project`.
 */
function keyLabel(k: KindDef, key: string, nameById: ReadonlyMap<string, string>): string {
  const field = k.identity.by === 'key' ? fieldAt(resourceModel(k.schema), k.identity.field) : undefined;
  const parts = keyParts(field, key);
  if (!parts) return key;
  // The project's (or organization's) id is that word wherever it stands: a project's key names it twice.
  const plain = new Map(parts.flatMap(([p, ref]) => (ref === 'project' || ref === 'organization' ? [[p, ref]] : [])));
  const words = parts.map(([p, ref]) => (ref === null ? p : (plain.get(p) ?? nameById.get(p) ?? p)));
  return [...new Set(words)].join('-');
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'resource';

/**
 * Which document manages a live resource: the one whose address the state binds to its id, whose `id` it is, whose
 * key it is (key kinds), or, for a natural kind not bound yet, whose natural key it has (plan would adopt it).
 */
function managerOf(
  registry: Registry,
  state: State,
  docs: Document[],
): (k: KindDef, id: string, r: JsonObject) => string | undefined {
  const byId = new Map<string, string>();
  const byNatural = new Map<string, string>();
  for (const d of docs) {
    const k = registry.get(d.kind)!;
    const bound = state.idOf(d.address);
    for (const id of [bound, d.id, k.identity.by === 'key' ? d.spec[k.identity.field] : undefined]) {
      if (typeof id === 'string') byId.set(keyOf(k, id), d.address);
    }
    if (k.identity.by === 'natural' && !bound)
      byNatural.set(keyOf(k, naturalKeyOf(k.schema, k.identity.fields, d.spec)), d.address);
  }
  return (k, id, r) =>
    byId.get(keyOf(k, id)) ??
    (k.identity.by === 'natural' ? byNatural.get(keyOf(k, naturalKeyOf(k.schema, k.identity.fields, r))) : undefined);
}

export async function exportLive(registry: Registry, client: Client, state: State, opts: ExportOptions) {
  const found: Found = new Map();
  const declared = new Set(opts.managed.map((d) => d.address));
  const targets = exportTargets(registry, state, declared, opts.ids);
  // A read that needs values of the resource (a content type's base type and project) that nothing here knows is
  // left to the kind's lists, which are read below anyway.
  const needs = (t: ExportTarget) =>
    Object.values(registry.get(t.kind)!.read.query ?? {}).some((p) => t.spec?.[specField(p)] === undefined);
  const listed = targets.filter(needs);
  await readEach(
    registry,
    client,
    targets.filter((t) => !needs(t)),
    opts.concurrency,
    found,
  );
  await listEveryKind(registry, client, opts, targets.length > listed.length, found);
  for (const t of listed) {
    const entry = found.get(`${t.kind} ${t.id}`);
    if (!entry)
      throw new UserError(
        `${t.kind} ${t.id} is not in the lists${opts.project ? ` of project ${opts.project}` : ''}, and reading it needs ${Object.keys(registry.get(t.kind)!.read.query!).join(' and ')}; nothing was written`,
        { code: 'E_NOT_FOUND' },
      );
    entry.address ??= t.address;
  }
  return documentsOf(registry, state, opts.managed, declared, found);
}

/** A resource's label for its document's name: a key kind's key in words, else its name, title or id. */
function labelOf(k: KindDef, id: string, resource: JsonObject, nameById: ReadonlyMap<string, string>): string {
  if (k.identity.by === 'key') return keyLabel(k, id, nameById);
  const localized = isObject(resource.localized_name) ? Object.values(resource.localized_name)[0] : '';
  return String(resource.name || resource.title || localized || id);
}

/**
 * The documents of what was found that no document manages, by kind level and id, each named by its state address or
 * its label (made unique); each one's state entry made where there is none. The others are the skipped.
 */
function documentsOf(registry: Registry, state: State, managed: Document[], declared: Set<string>, found: Found) {
  const docs: ExportedDoc[] = [];
  const skipped: Skipped[] = [];
  const managerFor = managerOf(registry, state, managed);
  // An address is free for a resource when no document declares it, nothing exported now took it, and the state
  // holds nothing there (not even a pending create) or this very resource: export never rebinds an address.
  const free = (address: string, id: string) =>
    !declared.has(address) && (!state.entry(address) || state.idOf(address) === id);
  /** the names given so far, by live id: a key made of ids reads as the names of what it names */
  const nameById = new Map<string, string>();
  const entries = [...found.values()].sort(
    (a, b) => registry.level(a.k.kind) - registry.level(b.k.kind) || (a.id < b.id ? -1 : 1),
  );
  for (const { k, id, address, resource } of entries) {
    const by = managerFor(k, id, resource);
    if (by) {
      skipped.push({ kind: k.kind, id, by });
      continue;
    }
    const label = labelOf(k, id, resource, nameById);
    let name = address?.split('/').slice(1).join('/') || slug(label);
    // A name from the state is its own entry's (documents' addresses were left out above); should that ever not
    // hold, stopping beats binding the address to another resource.
    if (address && !free(address, id))
      throw new UserError(`export would bind ${address} to ${id}, but that address is taken; nothing was written`, {
        code: 'E_STATE_MISMATCH',
      });
    for (let n = 2; !free(`${k.kind}/${name}`, id); n++) name = `${slug(label)}-${n}`;
    declared.add(`${k.kind}/${name}`);
    nameById.set(id, name);
    const spec = (toSpec(resourceModel(k.schema), resource) ?? {}) as JsonObject;
    docs.push({ kind: k.kind, name, ...(k.identity.by === 'id' ? { id: asLiteral(id) } : {}), spec });
    // An existing entry (same id, by `free`) keeps what it holds, the last applied fields included.
    if (!state.entry(`${k.kind}/${name}`)) state.set(`${k.kind}/${name}`, { kind: k.kind, id });
  }
  return { docs, skipped };
}
