// What a plan says of its changes once they are made: the counts by action, and each document's digest.
import { documentDigest } from '../resolve/digest.js';
import { dependencyGraph } from '../resolve/refs.js';
import type { Change, Document, Summary } from '../types.js';

/** How many changes of each action: the summary, counted from the changes themselves (also for a saved plan). */
export function summaryOf(changes: readonly Change[]): Summary {
  const summary: Summary = { create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 0 };
  for (const c of changes) summary[c.action]++;
  return summary;
}

/**
 * Each change of a document gets the document's digest, which apply records in the state with the fields (see
 * resolve/digest.ts), where one holds: not for values from the environment (never stored), nor a duplicate (its
 * placeholder stands for what the source has). `idOf`: the ids the references resolved to.
 */
export function addDigests(changes: Change[], docs: Document[], idOf: (address: string) => string | undefined): void {
  const byAddress = new Map(docs.map((d) => [d.address, d]));
  const graph = dependencyGraph(docs);
  for (const c of changes) {
    const d = c.action === 'release' ? undefined : byAddress.get(c.address);
    if (d && !d.sensitive?.length && d.duplicate_from === undefined)
      c.digest = documentDigest(d, graph.get(d.address) ?? [], idOf);
  }
}
