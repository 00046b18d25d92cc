// Where the platform allows one resource with `when` per `fields` (one default configuration per project and type),
// a document taking it may need another to give it up first (plan/build.ts orders the hand-over from the live
// values). Which of them holds it live is known only after reading them: these are the ones that may.
import type { Registry } from '../kinds/registry.js';
import type { Document } from '../types.js';

/** address of a document that takes it -> the documents of its kind that set it false on the same fields. */
export function handoverCandidates(docs: Document[], registry: Registry): Map<string, string[]> {
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
