// The lists one reading reads: each kind's list in a scope read once (natural keys, would-be defaults, the look
// before a create share it), the lists decided up front that answer documents by id, and what of them outlives
// the reading (only the resources a uniqueness rule can clash with).
import type { KindDef, UniqueWhen } from '../kinds/types.js';
import type { JsonObject } from '../schema/values.js';
import type { ListSpec } from '../types.js';
import type { Caller } from '../remote/client.js';
import { byNaturalKey } from './duplicates.js';
import { AnswersById, listAll, listSome, naturalKeyOf } from './list.js';
import { listKey, scopeOf, type ListRead } from './read-plan.js';

export class LiveLists {
  private readonly lists = new Map<string, Promise<JsonObject[]>>();
  /** the lists of kinds with a uniqueness rule, and the rules: the only lists the plan looks at after reading */
  private readonly ruled = new Map<string, UniqueWhen[]>();
  /** Listed resources indexed by natural key, built once per list (a find per document would be quadratic). */
  private readonly indexes = new Map<Promise<JsonObject[]>, Promise<Map<string, JsonObject[]>>>();
  /** the answers by id of the lists decided up front, by list key */
  private readonly byId = new Map<string, AnswersById>();

  constructor(private readonly client: Caller) {}

  /** A kind's whole list in a scope, read once whoever asks first. */
  listed(k: KindDef, list: ListSpec, scope: JsonObject): Promise<JsonObject[]> {
    const key = listKey(k, scope);
    if (!this.lists.has(key)) this.lists.set(key, listAll(this.client, list, scope));
    if (k.uniqueWhen?.length) this.ruled.set(key, k.uniqueWhen);
    return this.lists.get(key)!;
  }

  /**
   * Lists decided up front go out at once, beside the first GETs; one that fails (a platform without it) means
   * its documents are read one by one.
   */
  start(upFront: Map<string, ListRead>): void {
    for (const [key, g] of upFront) {
      const answers = new AnswersById();
      this.byId.set(key, answers);
      const answerIds = (items: JsonObject[]) => {
        for (const r of items) if (g.ids.has(String(r.id))) answers.answer(String(r.id), r);
      };
      const reading = g.whole
        ? this.listed(g.k, g.list, g.scope).then(answerIds)
        : listSome(this.client, g.list, g.scope, g.ids, answers);
      void reading.catch(() => {}).finally(() => answers.finish());
    }
  }

  /** The resource with this id as the list `key` answered it (taken: the list lets go of it), if it did. */
  async take(key: string, id: string): Promise<JsonObject | undefined> {
    return this.byId.get(key)?.take(id);
  }

  /** The live resources in the desired one's scope with its natural key (undefined: the scope is not known yet). */
  async sameKey(
    k: KindDef,
    fields: string[],
    list: ListSpec | undefined,
    desired: JsonObject,
  ): Promise<JsonObject[] | undefined> {
    const scope = list && scopeOf(list, desired);
    if (!list || !scope) return undefined;
    const items = this.listed(k, list, scope);
    if (!this.indexes.has(items))
      this.indexes.set(
        items,
        items.then((all) => byNaturalKey(k.schema, fields, all)),
      );
    return (await this.indexes.get(items)!).get(naturalKeyOf(k.schema, fields, desired)) ?? [];
  }

  /**
   * Only the live resources a rule can clash with (a default) outlive the reading: a project's 12,500 other
   * configurations would stay in memory for the whole plan only to be skipped by the check.
   */
  async ruledHolders(): Promise<(k: KindDef) => JsonObject[]> {
    const seen = new Map<string, JsonObject[]>();
    for (const [key, p] of this.lists) {
      const rules = this.ruled.get(key);
      if (!rules) continue;
      const kind = key.split(' ')[0];
      const holders = (await p.catch(() => [])).filter((r) => rules.some((u) => r[u.when] === true));
      seen.set(kind, [...(seen.get(kind) ?? []), ...holders]);
    }
    return listedByKind(seen);
  }
}

/**
 * The live resources of a kind with a uniqueness rule (one default per project and type) that were listed while
 * reading; the lists of other kinds are let go with the reading. Made outside the class: a closure made in a
 * method would keep all of the reading's working state (the lists, their indexes) alive for as long as the plan
 * holds it.
 */
function listedByKind(seen: Map<string, JsonObject[]>): (k: KindDef) => JsonObject[] {
  return (k) => seen.get(k.kind) ?? [];
}
