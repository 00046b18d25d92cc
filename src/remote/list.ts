import type { KindDef } from '../kinds/types.js';
import { withQuery } from '../kinds/paths.js';
import { resourceModel } from '../schema/model.js';
import { isObject, normalize, stableStringify, type JsonObject } from '../schema/values.js';
import type { Client } from './client.js';

/**
 * The resource a read answered, taken out of its wrapper. With `key`, a key kind's resource gets its key back: the
 * API answers a policy or an action configuration without the key it was read by.
 */
export function unwrap(k: KindDef, body: JsonObject, key?: string): JsonObject {
  const r = k.read.wrapper ? body[k.read.wrapper] : body;
  const resource = isObject(r) ? r : {};
  return key !== undefined && k.keyField ? { ...resource, [k.keyField]: key } : resource;
}

/**
 * A kind's list, page by page (the live API caps pages small, so this follows next_page_token until it is empty).
 * `scope` holds the values of the list's scope fields (project_id).
 */
async function* listPages(client: Client, k: KindDef, scope: JsonObject): AsyncGenerator<JsonObject[]> {
  const query = Object.fromEntries(k.list!.scope.map((f) => [f, `spec.${f}`]));
  let token = '';
  do {
    const base = withQuery(k.list!.path, query, scope);
    const path = `${base}${base.includes('?') ? '&' : '?'}page_size=1000${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
    const { body } = await client.call('GET', path);
    const page = body[k.list!.itemsKey];
    yield Array.isArray(page) ? page.filter(isObject) : [];
    token = typeof body.next_page_token === 'string' ? body.next_page_token : '';
  } while (token);
}

/** Every live resource of a kind's list, through all its pages. */
export async function listAll(client: Client, k: KindDef, scope: JsonObject): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  for await (const page of listPages(client, k, scope)) items.push(...page);
  return items;
}

/**
 * The live resources with these ids that a list finds, by id, read while the list is the cheaper way: it stops
 * once every id is found, or once it has cost as many pages as there are ids still missing (those are then read
 * one GET each, by the caller). A project's list may be far longer than the documents that manage some of it, and
 * the live API's pages are small: without the bound, 20 events of a project with 100,000 would cost thousands of
 * pages instead of 20 GETs; with it, never more than twice the GETs.
 */
export async function listSome(client: Client, k: KindDef, scope: JsonObject, ids: ReadonlySet<string>): Promise<Map<string, JsonObject>> {
  const found = new Map<string, JsonObject>();
  let pages = 0;
  for await (const page of listPages(client, k, scope)) {
    pages++;
    for (const r of page) if (ids.has(String(r.id))) found.set(String(r.id), r);
    if (found.size === ids.size || pages >= ids.size - found.size) break;
  }
  return found;
}

/** A resource's natural key (configurations: project_id + type + name) by meaning, as one comparable string. */
export function naturalKeyOf(k: KindDef, r: JsonObject): string {
  const model = resourceModel(k.schema);
  return stableStringify(k.naturalKey!.map((f) => normalize(model.props?.[f], r[f]) ?? null));
}
