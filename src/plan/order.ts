// The documents sorted by address, once per list of documents: the plan's apply order and the configuration hash
// both start from it (10,000 documents take some milliseconds to sort, after the last reply has arrived).
import type { Document } from '../types.js';

const sorted = new WeakMap<readonly Document[], Document[]>();

export function byAddress(docs: readonly Document[]): Document[] {
  let out = sorted.get(docs);
  if (!out) sorted.set(docs, (out = [...docs].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))));
  return out;
}
