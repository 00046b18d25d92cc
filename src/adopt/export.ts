// Adoption: the live resources tapedeck can find (named by the state, by --id, or listed), written as documents,
// one file per kind, response-only fields and secrets left out, keys in schema order. Planning the exported
// documents right away shows no changes. Into a directory that already holds documents, only what none of them
// manages is written, and no address the documents or the state use is bound to another resource.
import { ApiError, errorLine, UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { listSpecOf, readBackOf } from '../kinds/access.js';
import { specField } from '../kinds/paths.js';
import { listAll, naturalKeyOf, unwrap } from '../live/list.js';
import type { Field } from '../schema/model.js';
import { fieldAt, keyParts, resourceModel } from '../schema/model.js';
import { isObject, normalize, type Json, type JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import type { State } from '../state/state.js';
import type { Document } from '../types.js';
import { mapPool } from '../util/pool.js';

export interface ExportTarget {
  kind: string;
  id: string;
  /** the address the state knows it by */
  address?: string;
  /** what the state holds of its fields: a read may need some (a content type's base_type and project) */
  spec?: JsonObject;
}

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
 * The scopes a kind is listed in: the project (`--project`), and each known value of an enum the list is scoped by
 * (the live API lists content types one base type at a time).
 */
function listScopes(k: KindDef, project: string | undefined): JsonObject[] {
  const model = resourceModel(k.schema);
  let scopes: JsonObject[] = [{}];
  for (const name of listSpecOf(k)?.scope ?? []) {
    const f = fieldAt(model, name);
    const values = f?.ref?.includes('project')
      ? [project ?? '']
      : f?.type === 'enum'
        ? (f.known ?? []).filter((v) => v !== f.zero)
        : [''];
    scopes = scopes.flatMap((s) => values.map((v) => (v ? { ...s, [name]: v } : s)));
  }
  return scopes;
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

const keyOf = (k: { kind: string }, id: string) => `${k.kind} ${id}`;

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

export async function exportLive(
  registry: Registry,
  client: Client,
  state: State,
  opts: { ids: ExportTarget[]; project?: string; concurrency: number; warn: (m: string) => void; managed: Document[] },
) {
  const found = new Map<string, { k: KindDef; id: string; address?: string; resource: JsonObject }>();
  const declared = new Set(opts.managed.map((d) => d.address));
  const targets: ExportTarget[] = [
    // An entry whose address a document declares is that document's: not read, and its id is skipped below.
    ...Object.entries(state.data.resources)
      .filter(([a, e]) => e.id && !declared.has(a))
      .map(([address, e]) => ({ kind: e.kind, id: e.id!, address, spec: (e.fields ?? {}) as JsonObject })),
    ...opts.ids,
  ];
  // --id kinds are checked where they are parsed; a state entry may name a kind this version does not have.
  const unknown = targets.find((t) => !registry.get(t.kind));
  if (unknown)
    throw new UserError(
      `${state.backend.label}: ${unknown.address} is of kind ${unknown.kind}, which this tapedeck does not know (drop it with tapedeck state forget)`,
      { code: 'E_STATE_INVALID' },
    );
  // A read that needs values of the resource (a content type's base type and project) that nothing here knows is
  // left to the kind's lists, which are read below anyway.
  const needs = (t: ExportTarget) =>
    Object.values(registry.get(t.kind)!.read.query ?? {}).some((p) => t.spec?.[specField(p)] === undefined);
  const listed = targets.filter(needs);
  await mapPool(
    targets.filter((t) => !needs(t)),
    opts.concurrency,
    async (t) => {
      const k = registry.get(t.kind)!;
      const read = readBackOf(k, { id: t.id, key: k.identity.by === 'key' ? t.id : undefined, spec: t.spec ?? {} });
      const resource = unwrap(read, (await client.call('GET', read.path)).body, t.id);
      found.set(keyOf(k, t.id), { k, id: t.id, address: t.address, resource });
    },
  );
  // A list the platform refuses (one that needs a project, say), or one connection lost, costs that kind's listing,
  // not the export. A platform that answers nothing (every read failed without an answer) or refuses the token
  // fails the export instead: its error goes up, for the one line plan prints (cli/reach.ts).
  let answered = targets.length > listed.length;
  const refused: { kind: string; error: unknown }[] = [];
  for (const k of registry.kinds) {
    const list = listSpecOf(k);
    if (!list) continue;
    for (const scope of listScopes(k, opts.project)) {
      const items = await listAll(client, list, scope).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) throw e;
        refused.push({ kind: k.kind, error: e });
        return undefined;
      });
      if (!items) continue;
      answered = true;
      for (const r of items) {
        const id = String(r.id);
        if (!found.has(keyOf(k, id))) found.set(keyOf(k, id), { k, id, resource: r });
      }
    }
  }
  const noAnswer = refused.find(
    (f) => f.error instanceof ApiError && f.error.status === 0 && f.error.reason !== 'deadline_exceeded',
  );
  if (!answered && noAnswer) throw noAnswer.error;
  for (const f of refused)
    opts.warn(`warning: could not list ${f.kind} (${errorLine(f.error)})${opts.project ? '' : '; --project may help'}`);

  for (const t of listed) {
    const entry = found.get(`${t.kind} ${t.id}`);
    if (!entry)
      throw new UserError(
        `${t.kind} ${t.id} is not in the lists${opts.project ? ` of project ${opts.project}` : ''}, and reading it needs ${Object.keys(registry.get(t.kind)!.read.query!).join(' and ')}; nothing was written`,
        { code: 'E_NOT_FOUND' },
      );
    entry.address ??= t.address;
  }

  const docs: ExportedDoc[] = [];
  const skipped: Skipped[] = [];
  const managerFor = managerOf(registry, state, opts.managed);
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
    const label =
      k.identity.by === 'key'
        ? keyLabel(k, id, nameById)
        : String(
            resource.name ||
              resource.title ||
              (isObject(resource.localized_name) ? Object.values(resource.localized_name)[0] : '') ||
              id,
          );
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
