// A document's digest: what `--refresh changed` compares with the state before resolving the document at all. The
// state records it beside the managed fields at apply (only where they are the document's desired values); a
// document whose digest is the recorded one has those desired values still, since they follow from the digest's
// inputs alone: the document after variables were filled in, the ids its references resolve to, and the tapedeck
// version (its kinds' schemas and how it normalises). Any other digest only means the document is compared the slow
// way (its desired values with the recorded fields), never that a change goes unseen.
import { hash } from 'node:crypto';
import type { Document } from '../types.js';
import { tapedeckVersion } from '../version.js';

/** One document as the files gave it, variables filled in: the configuration hash's part and the digest's. */
const documentText = (d: Document) =>
  JSON.stringify([
    d.address,
    d.id ?? null,
    d.duplicate_from ?? null,
    d.moved_from ?? null,
    d.spec,
    ...(d.allow_duplicate ? [true] : []),
  ]);

const hashes = new WeakMap<Document, string>();

/**
 * The hash of one document's text, made once per document and run (the configuration hash and the digest both
 * ask). Keys in the order the files wrote them: keys moved around in a file are another hash (the safe side), and
 * the native JSON.stringify costs a tenth of a sorting one.
 */
export function documentHash(d: Document): string {
  let h = hashes.get(d);
  if (h === undefined) hashes.set(d, (h = hash('sha256', documentText(d), 'base64')));
  return h;
}

/**
 * The digest of a document whose references (`refs`, the addresses it refers to) resolve to the ids `idOf` gives;
 * undefined where one of them is not known (a target created in the same apply): no digest is recorded then.
 */
export function documentDigest(
  d: Document,
  refs: readonly string[],
  idOf: (address: string) => string | undefined,
): string | undefined {
  const ids = refs.map(idOf);
  if (ids.includes(undefined)) return undefined;
  // 128 bits: as safe from a chance match as the whole hash here, for 22 characters per state entry instead of 44.
  // A slice would keep the whole 44-character hash alive behind it for as long as the plan and the state hold the
  // digest; JSON.parse makes a string of its own (base64 needs no escaping). docs/performance.md has the figures.
  const digest = hash('sha256', JSON.stringify([tapedeckVersion(), documentHash(d), refs, ids]), 'base64');
  return JSON.parse(`"${digest.slice(0, 22)}"`) as string;
}
