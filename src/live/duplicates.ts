// Looking before creating: the platform has no delete, so a second resource made by mistake stays for good. Before
// a create, the live resources of the kind's list in scope with the document's natural key (x-natural-key in the
// kind's schema) are looked for; one that no state entry and no document claims stops the plan with the command that
// adopts it. Only the decisions are here; the lists are read (once per kind and scope) by read-live.ts.
import { UserError } from '../errors.js';
import { hasReference } from '../resolve/refs.js';
import { oneLine } from '../util/escape.js';
import { resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { Document } from '../types.js';
import { nearestPos } from '../validate/locate.js';
import { naturalKeyOf } from './list.js';

/** Who holds a live resource: an address of the state or of a document, whether the state released it, and
 *  whether a document of this plan still declares that address (else its entry is released by this plan). */
export interface Owner {
  address: string;
  released: boolean;
  declared: boolean;
}

/** The fields that tell a kind's resources apart (x-natural-key), where its schema declares them. */
export const naturalKeyFields = (schema: string): string[] | undefined => resourceModel(schema).naturalKey;

/** Listed resources by natural key, each key with every resource that has it (in list order). */
export function byNaturalKey(schema: string, fields: string[], resources: JsonObject[]): Map<string, JsonObject[]> {
  const index = new Map<string, JsonObject[]>();
  for (const r of resources) {
    const key = naturalKeyOf(schema, fields, r);
    const same = index.get(key);
    if (same) same.push(r);
    else index.set(key, [r]);
  }
  return index;
}

/** Whether a desired resource's natural key can be looked for now: every field set, none waiting for an id or for
 *  the value of a source it is copied from (`placeholder`). */
export function keyKnown(fields: string[], desired: JsonObject, placeholder?: string): boolean {
  return fields.every((f) => {
    const v = desired[f];
    if (v === undefined || v === null || v === '') return false;
    return typeof v !== 'string' || (!hasReference(v) && !(placeholder && v.includes(placeholder)));
  });
}

/**
 * What a create of `doc` meets among `same` (live resources with its natural key): nothing, a note (allowed by
 * allow_duplicate), or a located error naming them and the one way to take each over (`tapedeck import` for one
 * nobody manages, `moved_from` for one the state released or is about to); one another document manages is a
 * copy-pasted document, which would make a second resource for good.
 */
export function duplicateCheck(
  doc: Document,
  schema: string,
  fields: string[],
  same: JsonObject[],
  owner: (id: string) => Owner | undefined,
): { note?: string; error?: UserError } {
  const free: string[] = [];
  const held: Array<[string, Owner]> = [];
  for (const r of same) {
    const id = oneLine(String(r.id ?? ''));
    const o = owner(String(r.id ?? ''));
    if (!o) free.push(id);
    else if (o.address !== doc.address && o.address !== doc.moved_from) held.push([id, o]);
  }
  if (!free.length && !held.length) return {};
  const key = fields.join(', ');
  if (doc.allow_duplicate) {
    const ids = [...free, ...held.map(([id]) => id)].join(', ');
    return { note: `allow_duplicate: a second ${doc.kind} with the same ${key} as ${ids}` };
  }
  const has = (ids: string) => `the platform already has ${doc.kind} ${ids} with the same ${key}`;
  const adopt = `adopt ${free.length > 1 ? 'one of them' : 'it'} with \`tapedeck import ${doc.address} ${free[0]}\``;
  const problems = [
    ...(free.length ? [`${has(free.join(', '))}, which no state entry manages: ${adopt}`] : []),
    ...held.map(([id, o]) => `${has(id)}, ${heldBy(o)}`),
  ];
  // Located at the first field of the key that is not the scope (the name, the title), where the reader looks.
  const field = fields.find((f) => !resourceModel(schema).props?.[f]?.identity) ?? fields[0];
  const at = nearestPos(doc.source, `/spec/${field}`);
  const where = `${doc.source.file}${at ? `:${at.line}:${at.col}` : ''}`;
  const message = `${doc.address}: ${problems.join('; ')}; or set allow_duplicate: true to create a second one`;
  return { error: new UserError(message, { code: 'E_DUPLICATE', where }) };
}

/** Who holds a look-alike, and how this document takes it over instead of making a second one. */
function heldBy(o: Owner): string {
  const back = `take it back with \`moved_from: ${o.address}\` in this document`;
  if (o.released) return `released from ${o.address}: ${back}`;
  if (!o.declared)
    return `managed by ${o.address}, which no document declares any more: if this document replaces it, ${back}`;
  return `managed by ${o.address}: this document looks like a copy of it, and would make a second one for good`;
}
