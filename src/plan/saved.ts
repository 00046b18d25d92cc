// Saved plans: written with a checksum, read back checked against the plan file's JSON Schema, its checksum and
// the tapedeck version, and refused when what they were made from has moved (configuration, environment, state
// serial, or the live resources they would write).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiError, UserError } from '../errors.js';
import { isObject, type JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import { listAll, naturalKeyOf, unwrap } from '../remote/list.js';
import type { State } from '../state/state.js';
import type { Change, Document, Plan } from '../types.js';
import { mapPool } from '../util/pool.js';
import { validator, describe } from '../validate/schema.js';
import { tapedeckVersion } from '../version.js';
import { configurationHash, fingerprint } from './fingerprint.js';

/** JSON with every object's keys sorted; like JSON.stringify, it leaves out keys holding undefined. */
const canonical = (v: unknown) => JSON.stringify(v, (_, x: unknown) =>
  isObject(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x);

/** sha-256 of the plan without its checksum: any edit of a saved plan changes it. */
export function planChecksum(plan: Plan): string {
  const { checksum: _, ...rest } = plan;
  return createHash('sha256').update(canonical(rest)).digest('hex');
}

export const withChecksum = (plan: Plan): Plan => ({ ...plan, checksum: planChecksum(plan) });

export function readSavedPlan(file: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`saved plan ${file}: ${code ? `cannot read it (${code})` : 'not valid JSON'}`);
  }
  const version = (data as { tapedeck_version?: unknown } | null)?.tapedeck_version;
  if (typeof version === 'string' && version !== tapedeckVersion()) {
    throw new UserError(`saved plan ${file} was made by tapedeck ${version}; this is tapedeck ${tapedeckVersion()}: make the plan again`);
  }
  const valid = validator('plan.schema.json');
  if (!valid(data)) {
    const problems = (valid.errors ?? []).slice(0, 5).map((e) => describe(e).message);
    throw new UserError(`${file} is not a tapedeck plan of this version: ${problems.join('; ')} (make it with \`tapedeck plan --out\`)`);
  }
  const plan = data as unknown as Plan;
  if (plan.checksum !== planChecksum(plan)) throw new UserError(`saved plan ${file} was edited after it was made (its checksum does not match): make the plan again`);
  return plan;
}

/** What the live resource behind a change looks like now, by the same measure the plan used. */
async function fingerprintNow(c: Change, client: Client): Promise<string> {
  const schema = c.schema!;
  if (c.action === 'update') {
    const read = c.read!;
    try {
      return fingerprint(schema, read.carry, unwrap(read, (await client.call('GET', read.path)).body, read.key_field ? c.id : undefined));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return fingerprint(schema, read.carry, read.missing === 'empty' && read.key_field ? { [read.key_field]: c.id! } : null);
      throw e;
    }
  }
  // A create: only kinds found by a natural key can have appeared since; look for one.
  const fields = c.lookup?.natural_key;
  if (!fields) return 'absent';
  const { list, match } = c.lookup!;
  const scope = Object.fromEntries(list.scope.map((f) => [f, match[f] ?? null])) as JsonObject;
  const wanted = naturalKeyOf(schema, fields, match as JsonObject);
  const found = (await listAll(client, list, scope)).find((r) => naturalKeyOf(schema, fields, r) === wanted);
  return fingerprint(schema, undefined, found ?? null);
}

/** Why the saved plan may no longer be applied; empty when it still holds. */
export async function staleness(plan: Plan, docs: Document[], env: { name: string; base_url: string }, state: State, client: Client, concurrency: number): Promise<string[]> {
  const reasons: string[] = [];
  if (plan.environment.name !== env.name || plan.environment.base_url !== env.base_url) {
    reasons.push(`the plan was made for environment ${plan.environment.name} at ${plan.environment.base_url}, not ${env.name} at ${env.base_url}`);
  }
  if (plan.configuration_hash !== configurationHash(docs)) reasons.push('the configuration (documents or variables) changed since the plan was made');
  const now = state.ref();
  if (now.lineage !== plan.state.lineage || now.serial !== plan.state.serial) {
    // A saved plan applies at most once: its own apply moves the serial on.
    reasons.push(`the state moved since the plan was made (serial ${plan.state.serial} of ${plan.state.lineage || 'a new state'}, now ${now.serial} of ${now.lineage || 'a new state'}): it was applied already, or another apply ran`);
    return reasons;
  }
  const writes = plan.changes.filter((c) => c.action !== 'noop');
  const moved = await mapPool(writes, concurrency, async (c) => {
    const now = await fingerprintNow(c, client);
    return now === c.live_fingerprint ? undefined : `${c.address}: the live resource changed since the plan was made`;
  });
  return [...reasons, ...moved.filter((m): m is string => !!m)];
}
