// One document's read, step by step: by key, by id, a pending create looked up, adopted by natural key, looked for
// before a create, a duplicate's source checked, the duplicate's placeholder filled in. What each document is to
// be comes from resolve/; deciding what to change is the planner's.
import { UserError } from '../errors.js';
import { createFor, type KindDef } from '../kinds/types.js';
import { listSpecOf, lookupOf } from '../kinds/access.js';
import { readPathFields } from '../kinds/paths.js';
import { desiredOf, withOriginal } from '../resolve/desired.js';
import { hasReference } from '../resolve/refs.js';
import type { Observed } from '../types.js';
import type { Caller } from '../remote/client.js';
import type { Owner } from './duplicates.js';
import type { LiveLists } from './live-lists.js';
import {
  lookBeforeCreating,
  lookBeforeDuplicating,
  NOT_FOUND,
  readResource,
  refuseIncompleteCreate,
} from './look-before.js';
import { scopeOf, wouldBeDefault, type DocRead } from './read-plan.js';
import { findCreated } from './recover.js';

/** What every document's read shares: the client, the lists, and what is known of ids and their holders. */
export interface ReadContext {
  client: Caller;
  lists: LiveLists;
  /** a document's id, once read (or known without reading) */
  idOf: (address: string) => string | undefined;
  /** who holds a live resource: the state's entries, then the documents of this plan */
  ownerOf: (id: string) => Owner | undefined;
  /** the ids already someone's: the state's, and those found for a pending create during this reading */
  claimed: () => Set<string>;
  recreateMissing?: boolean;
}

/** The document's observation, made before its first request (its desired values, nothing live yet). */
export function observationOf(r: DocRead, idOf: (address: string) => string | undefined): Observed {
  const d = desiredOf(r.doc, r.k, r.refers, idOf);
  // Every field from the start, in one order: ten thousand objects of one shape, not shapes that grow one by one.
  return {
    doc: r.doc,
    desired: d.desired,
    source: d.source,
    id: undefined,
    live: null,
    moved_from: r.movedFrom,
    from_state: false,
    adopted_by: undefined,
    restored: r.restored,
    notes: undefined,
  };
}

/** Reads the live resource of `o`'s document into it. */
export async function readDocument(ctx: ReadContext, r: DocRead, o: Observed): Promise<void> {
  const { k } = r;
  if (k.identity.by === 'key') return readByKey(ctx, k, k.identity.field, o);
  if (r.id) await readById(ctx, r, o);
  if (!o.live && r.pending) await findPending(ctx, r, o);
  // A configuration that would become a default must be checked against the live ones: list them.
  const list = listSpecOf(k);
  const scope = list && scopeOf(list, o.desired);
  if (list && scope && wouldBeDefault(k, o.desired)) await ctx.lists.listed(k, list, scope);
  if (!o.live && k.identity.by === 'natural') {
    const found = (await ctx.lists.sameKey(k, k.identity.fields, list, o.desired))?.[0];
    if (found) {
      o.live = found;
      o.id = String(found.id);
      o.adopted_by = k.identity.fields;
    }
  }
  if (!o.live && createFor(k, o.source) && k.identity.by !== 'natural') {
    refuseIncompleteCreate(k, o);
    if (o.source && k.duplicate) await lookBeforeDuplicating(ctx, k, o, o.source);
    else await lookBeforeCreating(ctx, k, o);
  }
  // Once the duplicate exists, its placeholder means what the server made of it: the source's value of that field.
  const mark = o.source ? k.duplicate?.placeholder : undefined;
  if (o.live && o.source && mark && JSON.stringify(o.desired).includes(mark)) {
    const original = await readResource(ctx.client, k, { id: o.source, spec: o.desired }, false);
    o.desired = withOriginal(o.desired, original ?? {}, mark);
  }
}

/** A key kind's id is its key; a resource never set (a policy) reads as an empty one. */
async function readByKey(ctx: ReadContext, k: KindDef, field: string, o: Observed): Promise<void> {
  const key = String(o.desired[field]);
  if (hasReference(key)) return void (o.live = { [field]: key }); // its target is created in this apply
  o.live = (await readResource(ctx.client, k, { key, spec: o.desired }, true)) ?? { [field]: key };
  o.id = key;
}

/** By the id the document or the state names: through a list decided up front, or a GET. */
async function readById(ctx: ReadContext, r: DocRead, o: Observed): Promise<void> {
  const { doc, k, id } = r;
  // Taken, the list lets go of it (a second document with the same id, which validation makes unlikely, is read
  // with a GET).
  const viaList = r.viaList ? await ctx.lists.take(r.viaList, id!) : undefined;
  // Read where the state last saw it: a document that names another project asks for the old resource there, and a
  // changed identity is planned as a replace, never as a resource gone.
  const spec = r.at ? { ...o.desired, ...r.at } : o.desired;
  o.live = viaList ?? (await readResource(ctx.client, k, { id: id!, spec }, r.fromState));
  if (o.live) {
    o.id = id;
    o.from_state = r.fromState;
  } else if (!createFor(k, o.source)) {
    throw new UserError(`${doc.kind} ${id} (from the state) no longer exists and cannot be created`, NOT_FOUND);
  }
  // The wrong platform (another environment's URL, a wrong path prefix) answers 404 for every id it does not
  // have: re-creating them all would be the worst outcome, so only an explicit flag does it.
  // Where the state does not record where it was (an entry of an older tapedeck), a 404 from where the document says
  // cannot tell a deleted resource from one in another project: re-creating could drop one that still exists.
  else if (r.fromState && !r.at && readPathFields(k).length) {
    throw new UserError(
      `the state knows it as ${doc.kind} ${id}, but the platform has no such ${doc.kind} with the ${readPathFields(k).join(' and ')} the document names, and the state does not record where it was: if it moved, put the old values back and apply once (the state then records them); if it was deleted, run \`tapedeck state forget ${r.movedFrom ?? doc.address}\``,
      NOT_FOUND,
    );
  } else if (!ctx.recreateMissing) {
    throw new UserError(
      `the state knows it as ${doc.kind} ${id}, but the platform has no such ${doc.kind}. If it was deleted, pass --recreate-missing to create it again (or run \`tapedeck state forget ${r.movedFrom ?? doc.address}\`); if not, check --base-url: this may be another platform`,
      NOT_FOUND,
    );
  }
}

/** A create sent earlier whose outcome was never learnt: looked up, so that it is not made a second time. */
async function findPending(ctx: ReadContext, r: DocRead, o: Observed): Promise<void> {
  const { k, pending } = r;
  const lookup = lookupOf(k, o.desired, o.source);
  if (!lookup) {
    throw new UserError(
      `a create sent at ${pending!.since} may have taken effect, and a ${k.kind} cannot be looked up: check the platform, then set its id in the document or run \`tapedeck state forget ${r.doc.address}\``,
      { code: 'E_OUTCOME_UNKNOWN' },
    );
  }
  const { since, existing } = pending!;
  const found = await findCreated(ctx.client, { lookup, schema: k.schema, since, existing, claimed: ctx.claimed() });
  if (found) {
    o.live = found;
    o.id = String(found.id);
  }
}
