// A document as it is to be sent: references whose ids are known filled in, values in the API's wire form; and,
// once a duplicate exists, its placeholder (`%@`) replaced by what the server made of it.
import type { KindDef } from '../kinds/types.js';
import { resourceModel } from '../schema/model.js';
import { isObject, wireForm, type JsonObject } from '../schema/values.js';
import type { Desired, Document } from '../types.js';
import { fillReferences, holdsEscapes } from './refs.js';

/**
 * `refers`: the document holds references (most do not, and are not walked for them). One holding an escaped
 * literal (`$${Kind/name.id}`) is filled in too: that is where the escape is dropped.
 */
export function desiredOf(doc: Document, k: KindDef, references: boolean, idOf: (address: string) => string | undefined): Desired {
  const refers = references || holdsEscapes(doc);
  const desired = wireForm(resourceModel(k.schema), refers ? fillReferences(doc.spec, idOf) : doc.spec) as JsonObject;
  const source = doc.duplicate_from && refers ? fillReferences(doc.duplicate_from, idOf) : doc.duplicate_from;
  return { doc, desired, ...(source !== undefined ? { source } : {}) };
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
