// The look before a create (the platform has no delete: a second resource made by mistake stays for good): the
// document's natural key (x-natural-key) looked for in its kind's list in scope, and for a copy of another resource
// (duplicate_from) the key the copy will have. The decisions are duplicates.ts's; the lists are live-lists.ts's.
import { ApiError, UserError } from '../errors.js';
import { listSpecOf, readShapeOf } from '../kinds/access.js';
import { readPath, type PathValues } from '../kinds/paths.js';
import type { KindDef } from '../kinds/types.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { Observed } from '../types.js';
import { oneLine } from '../util/escape.js';
import { nearestPos } from '../validate/locate.js';
import type { Caller } from '../remote/client.js';
import { duplicateCheck, keyKnown, naturalKeyFields, type Owner } from './duplicates.js';
import type { LiveLists } from './live-lists.js';
import { unwrap } from './list.js';

/** A resource someone names (the state, duplicate_from) that the platform does not have. */
export const NOT_FOUND = { code: 'E_NOT_FOUND' } as const;

/** What a look needs of the reading: the client, the lists, and who holds a live id. */
export interface LookContext {
  client: Caller;
  lists: LiveLists;
  ownerOf: (id: string) => Owner | undefined;
}

/** The resource (a key kind's with its key), or null when it does not exist and `missingOk`. */
export async function readResource(
  client: Caller,
  k: KindDef,
  v: PathValues,
  missingOk: boolean,
): Promise<JsonObject | null> {
  const shape = readShapeOf(k);
  try {
    return unwrap(shape, (await client.call('GET', readPath(k, v))).body, v.key);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404 && (missingOk || shape.missing === 'empty')) return null;
    throw e;
  }
}

/**
 * A create without a field the platform requires of it (the schema's x-create-required) is a located error before
 * anything is sent: applied, the rest of the plan would be written and this one refused.
 */
export function refuseIncompleteCreate(k: KindDef, o: Observed): void {
  const missing = (resourceModel(k.schema).createRequired ?? []).filter((f) =>
    [undefined, null, ''].includes(o.desired[f] as null),
  );
  if (!missing.length) return;
  const at = nearestPos(o.doc.source, `/spec/${missing[0]}`);
  const an = /^[AEIOU]/.test(k.kind) ? 'an' : 'a';
  throw new UserError(
    `${o.doc.address}: a create needs ${missing.map((f) => `spec.${f}`).join(', ')} (the platform refuses ${an} ${k.kind} without it): set it, or name an existing one by id`,
    { code: 'E_VALIDATION', where: `${o.doc.source.file}${at ? `:${at.line}:${at.col}` : ''}` },
  );
}

const noList = (k: KindDef) => `duplicates could not be checked: a ${k.kind} has no list to look in`;

/** Before a create: a live resource with the document's natural key that someone else holds stops the plan. */
export async function lookBeforeCreating(ctx: LookContext, k: KindDef, o: Observed): Promise<void> {
  const list = listSpecOf(k);
  if (!list) return void (o.notes = [noList(k)]);
  const fields = naturalKeyFields(k.schema);
  if (!fields || !keyKnown(fields, o.desired)) return;
  lookedFor(ctx, o, k, fields, await ctx.lists.sameKey(k, fields, list, o.desired));
}

/**
 * Before a copy of another resource (duplicate_from): its source is read (a mistyped one is a located error now,
 * not a failed apply), and the copy's natural key is what the platform will make of it: the document's values,
 * `%@` standing for the source's, and the source's own where the document sets none. Looked for as any create's;
 * where it cannot be known (the source is created in this apply) the plan says duplicates could not be checked.
 * Either way the plan names the source.
 */
export async function lookBeforeDuplicating(ctx: LookContext, k: KindDef, o: Observed, source: string) {
  const fields = naturalKeyFields(k.schema);
  const list = listSpecOf(k);
  const created = /^\$\{([A-Za-z]+\/[^}.]+)\.id\}$/.exec(source)?.[1];
  if (created) {
    o.notes = [`a copy of ${created}, created in this apply`];
    if (!list) o.notes.push(noList(k));
    else if (fields)
      o.notes.push(
        `duplicates could not be checked: ${created} is created in this apply, so the copy's ${fields.join(', ')} are not known before it`,
      );
    return;
  }
  const original = await readSource(ctx.client, k, o, source);
  o.notes = [`a copy of ${k.kind} ${oneLine(source)}${titleOf(k, fields, original)}`];
  if (!list) return void o.notes.push(noList(k));
  if (!fields) return;
  const copy = copyKey(fields, o.desired, original, k.duplicate!.placeholder);
  if (!keyKnown(fields, copy))
    return void o.notes.push(
      `duplicates could not be checked: the copy's ${fields.join(', ')} are not known before apply`,
    );
  // The source has the copy's key where the document changes none of it: that one is what is copied, no look-alike.
  const same = (await ctx.lists.sameKey(k, fields, list, copy))?.filter((r) => String(r.id) !== source);
  lookedFor(ctx, o, k, fields, same);
}

/** What the look for `o`'s natural key found among `same`: a located error, or a note (allow_duplicate). */
function lookedFor(ctx: LookContext, o: Observed, k: KindDef, fields: string[], same: JsonObject[] | undefined) {
  const { note, error } = duplicateCheck(o.doc, k.schema, fields, same ?? [], ctx.ownerOf);
  if (error) throw error;
  if (note) o.notes = [...(o.notes ?? []), note];
}

/** The natural key a copy will have: each field the document sets, `mark` filled in, else the source's value. */
function copyKey(fields: string[], desired: JsonObject, original: JsonObject, mark: string): JsonObject {
  const out: JsonObject = {};
  for (const f of fields) {
    const [mine, theirs] = [desired[f], original[f]];
    const set = mine !== undefined && mine !== null && mine !== '';
    if (!set) out[f] = theirs ?? null;
    else out[f] = typeof mine === 'string' && typeof theirs === 'string' ? mine.split(mark).join(theirs) : mine;
  }
  return out;
}

/** How the plan names a source beside its id: the first field of its natural key that is not its scope (a title). */
function titleOf(k: KindDef, fields: string[] | undefined, r: JsonObject): string {
  const field = fields?.find((f) => !resourceModel(k.schema).props?.[f]?.identity);
  const v = field && r[field];
  return typeof v === 'string' && v ? ` (${field} ${JSON.stringify(oneLine(v))})` : '';
}

/** A copy's source, read: a mistyped one is a located error at duplicate_from. */
async function readSource(client: Caller, k: KindDef, o: Observed, source: string): Promise<JsonObject> {
  try {
    return (await readResource(client, k, { id: source, spec: o.desired }, false))!;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
    const { doc } = o;
    const at = nearestPos(doc.source, '/duplicate_from');
    const where = `${doc.source.file}${at ? `:${at.line}:${at.col}` : ''}`;
    throw new UserError(`${where}: duplicate_from ${source}: no such ${doc.kind} on the platform`, {
      ...NOT_FOUND,
      cause: e,
    });
  }
}
