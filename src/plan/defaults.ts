// The kinds' uniqueness rules in a plan (one default configuration per project and type): a second live default
// refused, and a document taking the default over waiting for the one giving it up.
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import type { JsonObject } from '../schema/values.js';
import type { Observed } from '../types.js';

/** A plan that would make a second live default where the kind allows one (per project and type) is an error.
 *  `observed` are the planned documents; `all` every observation (a document not planned may give the default up). */
export function checkUniqueLive(
  registry: Registry,
  observed: Observed[],
  all: Map<string, Observed>,
  liveOthers: (k: KindDef) => JsonObject[],
): void {
  for (const o of observed) {
    const k = registry.get(o.doc.kind)!;
    for (const u of k.uniqueWhen ?? []) {
      if (o.desired[u.when] !== true) continue;
      const clash = liveOthers(k).find(
        (r) =>
          r[u.when] === true &&
          r.id !== o.id &&
          u.fields.every((f) => r[f] === o.desired[f]) &&
          ![...all.values()].some((x) => x.id === r.id && x.desired[u.when] === false),
      );
      if (clash)
        throw new UserError(
          `${o.doc.address}: would make ${u.message}; the live ${k.kind} ${String(clash.id)} (${String(clash.name ?? '')}) is already the default`,
          { code: 'E_PLAN' },
        );
    }
  }
}

/**
 * Where the platform allows one resource with `when` per `fields` (one default configuration per project and
 * type), a document taking it over waits for the one giving it up: the old default is unset first, in the same
 * apply, or the new one would be refused. address -> the addresses it waits for.
 */
export function handovers(registry: Registry, observed: Iterable<Observed>): Map<string, string[]> {
  const all = [...observed];
  const out = new Map<string, string[]>();
  for (const o of all) {
    for (const u of registry.get(o.doc.kind)!.uniqueWhen ?? []) {
      if (o.desired[u.when] !== true || o.live?.[u.when] === true) continue;
      const givers = all.filter(
        (x) =>
          x !== o &&
          x.doc.kind === o.doc.kind &&
          x.desired[u.when] === false &&
          x.live?.[u.when] === true &&
          u.fields.every((f) => x.desired[f] === o.desired[f]),
      );
      if (givers.length)
        out.set(o.doc.address, [...(out.get(o.doc.address) ?? []), ...givers.map((x) => x.doc.address)]);
    }
  }
  return out;
}
