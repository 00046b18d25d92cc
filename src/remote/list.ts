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
 * Every live resource of a kind's list, through all its pages (the live API caps pages small, so this follows
 * next_page_token until it is empty). `scope` holds the values of the list's scope fields (project_id).
 */
export async function listAll(client: Client, k: KindDef, scope: JsonObject): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  const query = Object.fromEntries(k.list!.scope.map((f) => [f, `spec.${f}`]));
  let token = '';
  do {
    const base = withQuery(k.list!.path, query, scope);
    const path = `${base}${base.includes('?') ? '&' : '?'}page_size=1000${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
    const { body } = await client.call('GET', path);
    const page = body[k.list!.itemsKey];
    if (Array.isArray(page)) items.push(...page.filter(isObject));
    token = typeof body.next_page_token === 'string' ? body.next_page_token : '';
  } while (token);
  return items;
}

/** A resource's natural key (configurations: project_id + type + name) by meaning, as one comparable string. */
export function naturalKeyOf(k: KindDef, r: JsonObject): string {
  const model = resourceModel(k.schema);
  return stableStringify(k.naturalKey!.map((f) => normalize(model.props?.[f], r[f]) ?? null));
}
