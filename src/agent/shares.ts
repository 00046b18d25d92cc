// Which replica reconciles which configuration: every replica computes the same answer from the same two lists (the
// configurations, the live replicas), so no coordinator is needed. Rendezvous hashing (each configuration goes to
// the replica that scores highest for it) moves only what must move when a replica joins or leaves; its loads are
// bounded so that shares are even: each replica takes floor(C/R) configurations, and C mod R of them one more. The
// per-configuration lock, not this, is what keeps two replicas from reconciling one configuration at once: while
// two replicas disagree (one has not yet seen a join), the one holding the lock goes on and the other waits for it.
import { createHash } from 'node:crypto';

const score = (replica: string, configuration: string): bigint =>
  createHash('sha256').update(`${replica}\0${configuration}`).digest().readBigUInt64BE(0);

/** configuration -> replica; empty when there is no replica. */
export function shares(configurations: string[], replicas: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const live = [...new Set(replicas)].sort();
  if (!live.length) return out;
  const all = [...new Set(configurations)].sort();
  const base = Math.floor(all.length / live.length);
  let extra = all.length % live.length;
  const load = new Map(live.map((r) => [r, 0]));
  for (const c of all) {
    const ranked = [...live].sort((a, b) => {
      const d = score(b, c) - score(a, c);
      return d > 0n ? 1 : d < 0n ? -1 : a < b ? -1 : 1;
    });
    const pick = ranked.find((r) => load.get(r)! < base || (load.get(r) === base && extra > 0))!;
    if (load.get(pick) === base) extra--;
    load.set(pick, load.get(pick)! + 1);
    out.set(c, pick);
  }
  return out;
}
