// A document as it is to be sent: references whose ids are known filled in, values in the API's wire form; and,
// once a duplicate exists, its placeholder (`%@`) replaced by what the server made of it.
import type { KindDef } from '../kinds/types.js';
import { resourceModel } from '../schema/model.js';
import { isObject, wireForm, type Json, type JsonObject } from '../schema/values.js';
import type { Desired, Document } from '../types.js';
import { fillReferences, holdsEscapes } from './refs.js';

/**
 * `refers`: the document holds references (most do not, and are not walked for them). One holding an escaped
 * literal (`$${Kind/name.id}`) is filled in too: that is where the escape is dropped.
 */
export function desiredOf(
  doc: Document,
  k: KindDef,
  references: boolean,
  idOf: (address: string) => string | undefined,
): Desired {
  const refers = references || holdsEscapes(doc);
  const filled = refers ? fillReferences(doc.spec, idOf) : doc.spec;
  if (holdsEscapes(doc)) escapedForms.set(doc, pairs(filled, fillReferences(doc.spec, idOf, true), new Map()));
  const desired = wireForm(resourceModel(k.schema), filled) as JsonObject;
  const source = doc.duplicate_from && refers ? fillReferences(doc.duplicate_from, idOf) : doc.duplicate_from;
  return { doc, desired, ...(source !== undefined ? { source } : {}) };
}

/**
 * A complete text drops the escapes of its literals (`$${Offer/x.id}` reads `${Offer/x.id}`), as the diff and the
 * display need; apply fills a plan's requests in once more, and would take that text for a reference. So a plan's
 * requests hold such a text with its escapes (`withEscapes`), which apply's filling drops. Only for the documents
 * that hold a literal (a WeakMap: nothing for the others).
 */
const escapedForms = new WeakMap<Document, Map<string, string>>();

function pairs(filled: unknown, kept: unknown, out: Map<string, string>): Map<string, string> {
  if (typeof filled === 'string' && typeof kept === 'string') {
    if (filled !== kept) out.set(filled, kept);
  } else if (Array.isArray(filled) && Array.isArray(kept)) {
    filled.forEach((x, i) => pairs(x, kept[i], out));
  } else if (isObject(filled) && isObject(kept)) {
    for (const [k, x] of Object.entries(filled)) pairs(x, kept[k], out);
  }
  return out;
}

/** `v` with each complete text of the document's literals in its escaped form (see escapedForms). */
export function withEscapes<T extends Json | undefined>(doc: Document, v: T): T {
  const forms = escapedForms.get(doc);
  if (!forms?.size || v === undefined) return v;
  const swap = (x: Json): Json =>
    typeof x === 'string'
      ? (forms.get(x) ?? x)
      : Array.isArray(x)
        ? x.map(swap)
        : isObject(x)
          ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, swap(y)]))
          : x;
  return swap(v as Json) as T;
}

/** `mark` in each string of `v` replaced by the string at the same place in `original`. */
export function withOriginal(v: JsonObject, original: JsonObject, mark: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    const o = original[k];
    if (typeof x === 'string' && typeof o === 'string') out[k] = x.split(mark).join(o);
    else if (isObject(x)) out[k] = withOriginal(x, isObject(o) ? o : {}, mark);
    else out[k] = x;
  }
  return out;
}
