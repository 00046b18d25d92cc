import { ApiError } from '../errors.js';
import { withQuery } from '../kinds/paths.js';
import { oneLine } from '../util/escape.js';
import { resourceModel } from '../schema/model.js';
import { isObject, normalize, stableStringify, type JsonObject } from '../schema/values.js';
import type { ListSpec, ReadBack } from '../types.js';
import type { Caller } from '../remote/client.js';

/**
 * The resource a read answered, taken out of its wrapper. With `key`, a key kind's resource gets its key back: the
 * API answers a policy or an action configuration without the key it was read by.
 */
export function unwrap(read: Pick<ReadBack, 'wrapper' | 'key_field'>, body: JsonObject, key?: string): JsonObject {
  const r = read.wrapper ? body[read.wrapper] : body;
  const resource = isObject(r) ? r : {};
  return key !== undefined && read.key_field ? { ...resource, [read.key_field]: key } : resource;
}

/** More pages than any real list has (a million resources at the size asked for): a server running away. */
export const MAX_LIST_PAGES = 10_000;

/**
 * The page size asked for. The live API caps pages small anyway; asked for more (the emulator gives up to 1,000),
 * a page's resources are all handed to their documents in one burst of work, long enough for young-generation
 * collections to find most of what that burst allocates still alive: V8 then allocates what those places make in
 * the old generation for the rest of the run (allocation-site pretenuring), so every later read left its garbage
 * there (pages of 1,000 measured in docs/performance.md).
 */
export const LIST_PAGE_SIZE = 100;

/**
 * A list, page by page (the live API caps pages small, so this follows next_page_token until it is empty).
 * `scope` holds the values of the list's scope fields (project_id). A server that hands out a token it gave
 * before (a cycle) or never stops is refused, instead of being followed forever.
 */
async function* listPages(client: Caller, list: ListSpec, scope: JsonObject): AsyncGenerator<JsonObject[]> {
  const query = Object.fromEntries(list.scope.map((f) => [f, `spec.${f}`]));
  const seen = new Set<string>();
  let token = '';
  do {
    const base = withQuery(list.path, query, scope);
    const path = `${base}${base.includes('?') ? '&' : '?'}page_size=${LIST_PAGE_SIZE}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
    const { body, status } = await client.call('GET', path);
    const page = body[list.items];
    yield Array.isArray(page) ? page.filter(isObject) : [];
    token = typeof body.next_page_token === 'string' ? body.next_page_token : '';
    const refuse = (why: string) => new ApiError('GET', path, status, 'bad_response', why);
    if (token && seen.has(token))
      throw refuse(
        `the list gave the page token ${oneLine(JSON.stringify(token.slice(0, 100)))} a second time; it would never end`,
      );
    if (token && seen.size + 1 >= MAX_LIST_PAGES)
      throw refuse(`the list goes on past ${MAX_LIST_PAGES} pages; stopped there`);
    seen.add(token);
  } while (token);
}

/** Every live resource of a list, through all its pages. */
export async function listAll(client: Caller, list: ListSpec, scope: JsonObject): Promise<JsonObject[]> {
  const items: JsonObject[] = [];
  for await (const page of listPages(client, list, scope)) items.push(...page);
  return items;
}

/**
 * The live resources with these ids that a list finds, by id, read while the list is the cheaper way: it stops
 * once every id is found, or once it has cost as many pages as there are ids still missing (those are then read
 * one GET each, by the caller). A project's list may be far longer than the documents that manage some of it, and
 * the live API's pages are small: without the bound, 20 events of a project with 100,000 would cost thousands of
 * pages instead of 20 GETs; with it, never more than twice the GETs. Each one found is handed to `answers` as its
 * page arrives.
 */
export async function listSome(
  client: Caller,
  list: ListSpec,
  scope: JsonObject,
  ids: ReadonlySet<string>,
  answers: AnswersById,
): Promise<void> {
  let found = 0;
  let pages = 0;
  for await (const page of listPages(client, list, scope)) {
    pages++;
    for (const r of page) {
      if (ids.has(String(r.id)) && answers.answer(String(r.id), r)) found++;
    }
    if (found === ids.size || pages >= ids.size - found) break;
  }
}

/**
 * A list's answers by id, each given as soon as its page arrives: the document waiting for it goes on at once,
 * and takes it, instead of 12,500 resources of a list waiting (long enough to be moved to the old generation) for
 * the last page. An id the list does not answer gets undefined once the list is done (the document is then read
 * with a GET).
 */
export class AnswersById {
  private readonly arrived = new Map<string, JsonObject>();
  private readonly waiting = new Map<string, (r: JsonObject | undefined) => void>();
  private done = false;

  /** Whether this id is answered for the first time. */
  answer(id: string, r: JsonObject): boolean {
    const give = this.waiting.get(id);
    if (give) {
      this.waiting.delete(id);
      give(r);
      return true;
    }
    if (this.arrived.has(id) || this.done) return false;
    this.arrived.set(id, r);
    return true;
  }

  /** No more answers: every id still waiting gets undefined. */
  finish(): void {
    this.done = true;
    for (const give of this.waiting.values()) give(undefined);
    this.waiting.clear();
  }

  /** The answer for an id, once (a second take of the same id gets undefined). */
  take(id: string): Promise<JsonObject | undefined> {
    const r = this.arrived.get(id);
    if (r) {
      this.arrived.delete(id);
      return Promise.resolve(r);
    }
    if (this.done) return Promise.resolve(undefined);
    return new Promise((give) => this.waiting.set(id, give));
  }
}

/** A resource's natural key (configurations: project_id + type + name) by meaning, as one comparable string. */
export function naturalKeyOf(schema: string, fields: string[], r: JsonObject): string {
  const model = resourceModel(schema);
  return stableStringify(fields.map((f) => normalize(model.props?.[f], r[f]) ?? null));
}
