// --target: a plan of some documents only, plus everything they reference (Terraform's -target). The documents are
// chosen after validation (every document is still checked) and before reading, so nothing else is read.
import { createHash } from 'node:crypto';
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import { configurationHash } from '../plan/fingerprint.js';
import { handoverCandidates } from '../resolve/handovers.js';
import { dependencyGraph } from '../resolve/refs.js';
import type { Document } from '../types.js';

/** An address (Kind/name) in which `*` stands for any text; nothing a document name could not hold but `*`. */
const PATTERN = /^[A-Za-z*]+\/[A-Za-z0-9_.*-]+$/;

/** The --target values, checked, each once, in the order given. */
export function parseTargets(list: string[] = []): string[] {
  for (const t of list) {
    if (!PATTERN.test(t))
      throw new UserError(
        `--target takes an address Kind/name, where * stands for any text (Offer/premium, Offer/*, */basic), not ${JSON.stringify(t)}`,
      );
  }
  return [...new Set(list)];
}

/** Whether an address is one the targets name; with no target, every address is. */
export function targeted(targets: string[]): (address: string) => boolean {
  if (!targets.length) return () => true;
  const globs = targets.map((t) => new RegExp(`^${t.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`));
  return (address) => globs.some((g) => g.test(address));
}

/**
 * The documents the targets match and everything they reference, transitively: a reference's id must be known
 * (read, or created first) for the targeted document to be planned; so is the hand-over of a default (resolve/handovers.ts). `known` gives the state's addresses, which a
 * target may name alone (to release an entry no document declares any more); asked only where there are targets
 * (100,000 of them are not listed for nothing). A target naming nothing is an error.
 */
export function selectTargets(
  docs: Document[],
  targets: string[],
  known: () => string[],
  registry: Registry,
): Document[] {
  if (!targets.length) return docs;
  const addresses = known();
  for (const t of targets) {
    const one = targeted([t]);
    if (!docs.some((d) => one(d.address)) && !addresses.some(one)) {
      throw new UserError(
        `--target ${t} matches no document and no resource in the state (addresses are Kind/name, e.g. Offer/premium; names are case-sensitive)`,
      );
    }
  }
  const graph = dependencyGraph(docs);
  const handover = handoverCandidates(docs, registry);
  const matches = targeted(targets);
  const chosen = new Set<string>();
  // A stack, not recursion: a chain of references may be as long as the configuration.
  const stack = docs.filter((d) => matches(d.address)).map((d) => d.address);
  while (stack.length) {
    const address = stack.pop()!;
    if (chosen.has(address)) continue;
    chosen.add(address);
    stack.push(...(graph.get(address) ?? []), ...(handover.get(address) ?? []));
  }
  return docs.filter((d) => chosen.has(d.address));
}

/**
 * The configuration hash of a plan: a targeted one also covers its targets (in any order), so a saved targeted plan
 * can never pass for a full one, nor for one of other targets.
 */
export function planConfigurationHash(docs: Document[], targets: string[]): string {
  const hash = configurationHash(docs);
  return targets.length
    ? createHash('sha256')
        .update(JSON.stringify([hash, [...targets].sort()]))
        .digest('hex')
    : hash;
}
