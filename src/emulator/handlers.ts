// The platform's operations, generic over kinds: read, list, create (fields or duplicate), update (patch or
// replace). Kind-specific rules come from the kind table and collectionRules, never from a check of the kind.
import type { KindDef } from '../kinds/types.js';
import { specField } from '../kinds/paths.js';
import { resourceKeyProblem } from '../kinds/policy.js';
import { resourceModel } from '../schema/model.js';
import { clone, isObject, valueAt, zeroFill, type Json, type JsonObject } from '../schema/values.js';
import { ApiFault, bad, notFound } from './fault.js';
import { listPage } from './list.js';
import { collectionRules } from './rules.js';
import { applyMask, checkShape, parseMask } from './shape.js';
import { keyOf, type Store } from './store.js';

const now = () => new Date().toISOString();

export interface Operation {
  kind: KindDef;
  /** the largest page a list answers (the live API caps pages; tests use small caps) */
  maxPageSize?: number;
  params: Record<string, string>;
  query: URLSearchParams;
  body: JsonObject;
}

function rulesOf(k: KindDef) {
  return collectionRules[k.seedKey] ?? {};
}

function check(store: Store, k: KindDef, r: JsonObject): void {
  rulesOf(k).check?.(r, store.col(k).values());
}

/** What a read answers: the wrapped resource, or (no wrapper) the resource's fields without its key. */
function respond(k: KindDef, wrapper: string | undefined, r: JsonObject): JsonObject {
  if (wrapper) return { [wrapper]: r };
  const rest = { ...r };
  delete rest[keyOf(k)];
  return rest;
}

function requireFields(k: KindDef, body: JsonObject): void {
  // The schema's x-create-required (what the plan also checks before a create) and the collection's own rules.
  for (const f of [...(resourceModel(k.schema).createRequired ?? []), ...(rulesOf(k).required ?? [])]) {
    if (body[f] === undefined || body[f] === null || body[f] === '') throw bad(`${f} is required`);
  }
}

function stamp(k: KindDef, r: JsonObject, fields: string[]): void {
  const model = resourceModel(k.schema);
  for (const f of fields) if (model.props?.[f]) r[f] = now();
}

export function read(store: Store, op: Operation): JsonObject {
  const { kind: k, params, query } = op;
  const key = params.key ?? params.id;
  // A content type is read within its project and base type: the platform's reference lists both parameters.
  for (const q of Object.keys(k.read.query ?? {})) if (!query.get(q)) throw bad(`${q} is required`);
  const r = store.col(k).get(key);
  if (!r) {
    if (rulesOf(k).emptyOnMissing)
      return respond(k, k.read.wrapper, zeroFill(resourceModel(k.schema), { [keyOf(k)]: key }) as JsonObject);
    throw notFound(`${k.kind} ${key}`);
  }
  // Content types are looked up within a project and base type; a mismatch is "not found", as on the platform.
  for (const [q, path] of Object.entries(k.read.query ?? {})) {
    const want = query.get(q);
    if (r[specField(path)] !== want) throw notFound(`${k.kind} ${key}`);
  }
  return respond(k, k.read.wrapper, r);
}

export function list(store: Store, op: Operation): JsonObject {
  const { kind: k, query } = op;
  if (!k.list) throw new Error(`${k.kind} has no list`);
  const { itemsKey } = k.list;
  const listRules = rulesOf(k).list ?? { orderBy: [], search: [] };
  // Scope fields beyond the project (a content type's base_type) are required: content types are listed one base
  // type at a time.
  const scoped = k.list.scope.filter((f) => f !== 'project_id');
  for (const f of scoped) if (!query.get(f)) throw bad(`${f} is required`);
  const all = [...store.col(k).values()].filter((r) => scoped.every((f) => r[f] === query.get(f)));
  const page = listPage(all, query, resourceModel(k.schema), listRules, op.maxPageSize);
  return { [itemsKey]: page.items, next_page_token: page.next_page_token };
}

export function create(store: Store, op: Operation): JsonObject {
  const { kind: k, body } = op;
  const model = resourceModel(k.schema);
  checkShape(model, body, '');
  requireFields(k, body);
  // Output-only fields in a create body are ignored, as the platform's API conventions say.
  const r: JsonObject = {};
  for (const [f, v] of Object.entries(body)) if (!model.props?.[f]?.readOnly) r[f] = v;
  r.id = store.newId(k);
  stamp(k, r, ['create_time', 'last_update_time']);
  const stored = store.put(k, r);
  try {
    check(store, k, stored);
  } catch (e) {
    store.col(k).delete(String(stored.id));
    throw e;
  }
  store.save();
  return { [k.create?.wrapper ?? 'resource']: stored };
}

/** Operation 13: copy the event, apply the body's masked fields, `%@` in a string standing for the original. */
export function duplicate(store: Store, op: Operation): JsonObject {
  const { kind: k, params, body } = op;
  const ep = k.duplicate;
  if (!ep) throw new Error(`${k.kind} is not created by duplication`);
  const sourceId = params.source;
  if (body[ep.idField] !== undefined && body[ep.idField] !== sourceId)
    throw bad(`${ep.idField} does not match the path`);
  const source = store.col(k).get(sourceId);
  if (!source) throw notFound(`${k.kind} ${sourceId}`);
  const model = resourceModel(k.schema);
  const changes = body[ep.bodyKey] ?? {};
  if (!isObject(changes)) throw bad(`${ep.bodyKey} must be an object`);
  checkShape(model, changes, ep.bodyKey);
  const paths = parseMask(model, body.update_mask, changes);
  const copy = clone(source);
  applyMask(copy, changes, paths, (path, v) => {
    const original = valueAt(source, path);
    return typeof v === 'string' && typeof original === 'string' ? v.split('%@').join(original) : v;
  });
  copy.id = store.newId(k);
  stamp(k, copy, ['create_time', 'last_update_time']);
  const stored = store.put(k, copy);
  store.save();
  return { [ep.wrapper]: stored };
}

export function patch(store: Store, op: Operation): JsonObject {
  const { kind: k, params, body } = op;
  const ep = k.update;
  if (ep.style !== 'patch') throw new Error(`${k.kind} is not updated by PATCH`);
  const model = resourceModel(k.schema);
  const part = ep.bodyKey ? (body[ep.bodyKey] ?? {}) : body;
  if (!isObject(part)) throw bad(`${ep.bodyKey} must be an object`);
  let id = params.id;
  if (ep.idField && body[ep.idField] !== undefined && body[ep.idField] !== id) {
    throw bad(`${ep.idField} "${String(body[ep.idField])}" does not match the id in the path "${id}"`);
  }
  if (ep.idInResource) {
    if (typeof part.id !== 'string' || !part.id) throw bad(`${ep.bodyKey}.id is required`);
    id = part.id;
  }
  const { id: _ignored, ...fields } = part;
  checkShape(model, fields, ep.bodyKey ?? '');
  const current = store.col(k).get(id);
  if (!current) throw notFound(`${k.kind} ${id}`);
  const paths = parseMask(model, body.update_mask, fields);
  const next = clone(current);
  applyMask(next, fields, paths);
  stamp(k, next, ['last_update_time']);
  const stored = store.put(k, next);
  try {
    check(store, k, stored);
  } catch (e) {
    store.col(k).set(id, current);
    throw e;
  }
  store.save();
  return { [k.read.wrapper ?? ep.bodyKey ?? 'resource']: stored };
}

/** Replace-style writes (set policy, attach action configuration): the whole resource, an etag where it has one. */
export function replace(store: Store, op: Operation): JsonObject {
  const { kind: k, params, body } = op;
  const keyField = keyOf(k);
  const key = params.key;
  if (body[keyField] !== undefined && body[keyField] !== key) throw bad(`${keyField} does not match the path`);
  const model = resourceModel(k.schema);
  const keyProblem = keyField === 'resource_key' ? resourceKeyProblem(key) : undefined;
  if (keyProblem) throw bad(keyProblem);
  const { etag, ...fields } = body;
  checkShape(model, fields, '');
  requireFields(k, fields);
  const current = store.col(k).get(key);
  const hasEtag = !!model.props?.etag;
  if (hasEtag && typeof etag === 'string' && etag !== '' && etag !== (current?.etag ?? '')) {
    throw new ApiFault('aborted', `etag mismatch: the ${k.kind.toLowerCase()} of ${key} was changed by someone else`);
  }
  const next: JsonObject = { ...fields, [keyField]: key } as JsonObject;
  if (hasEtag) next.etag = store.newEtag();
  const stored = store.put(k, next);
  try {
    check(store, k, stored);
  } catch (e) {
    if (current) store.col(k).set(key, current);
    else store.col(k).delete(key);
    throw e;
  }
  store.save();
  return {};
}

export type Handler = (store: Store, op: Operation) => Json;
