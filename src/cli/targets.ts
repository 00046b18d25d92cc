// --target: a plan of some documents only, plus everything they reference (Terraform's -target). The documents are
// chosen after validation (every document is still checked) and before reading, so nothing else is read.
import { createHash } from 'node:crypto';
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import { configurationHash } from '../plan/fingerprint.js';
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
 * (read, or created first) for the targeted document to be planned; so is the hand-over of a default (below). `known` gives the state's addresses, which a
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
 * Where the platform allows one resource with `when` per `fields` (one default configuration per project and type),
 * a document taking it may need another to give it up first (plan/build.ts orders the hand-over from the live
 * values): a target that takes it brings the documents of its kind that set it false on the same fields, as it
 * brings what it references. Which of them holds it live is known only after reading them.
 */
function handoverCandidates(docs: Document[], registry: Registry): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of docs) {
    for (const u of registry.get(d.kind)?.uniqueWhen ?? []) {
      if (d.spec[u.when] !== true) continue;
      const givers = docs.filter(
        (x) => x.kind === d.kind && x.spec[u.when] === false && u.fields.every((f) => x.spec[f] === d.spec[f]),
      );
      if (givers.length) out.set(d.address, [...(out.get(d.address) ?? []), ...givers.map((x) => x.address)]);
    }
  }
  return out;
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
