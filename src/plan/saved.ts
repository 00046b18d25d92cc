// Saved plans: read back with their format checked, and refused when what they were made from has moved.
import { readFileSync } from 'node:fs';
import { ApiError, UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { isObject, type JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import { listAll, naturalKeyOf, unwrap } from '../remote/list.js';
import type { Change, Document, Plan } from '../types.js';
import { mapPool } from '../util/pool.js';
import { configurationHash, fingerprint } from './fingerprint.js';

export function readSavedPlan(file: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`saved plan ${file}: ${code ? `cannot read it (${code})` : 'not valid JSON'}`);
  }
  if (!isObject(data) || !Array.isArray(data.changes) || !isObject(data.summary)) throw new UserError(`${file} is not a tapedeck plan`);
  if (data.format_version !== 1) throw new UserError(`saved plan ${file} has format_version ${String(data.format_version)}; this tapedeck applies version 1 (make the plan again)`);
  if (typeof data.configuration_hash !== 'string' || !isObject(data.environment)) {
    throw new UserError(`saved plan ${file} does not record what it was made from; make it with \`tapedeck plan --out\``);
  }
  return data as unknown as Plan;
}

/** What the live resource behind a change looks like now, by the same measure the plan used. */
async function fingerprintNow(k: KindDef, c: Change, client: Client): Promise<string> {
  if (c.action === 'update') {
    try {
      const { body } = await client.call('GET', c.read!.path);
      return fingerprint(k, unwrap(k, body, c.id));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return fingerprint(k, k.read.notFound === 'empty' && k.keyField ? { [k.keyField]: c.id! } : null);
      throw e;
    }
  }
  // A create: only kinds found by a natural key can have appeared since; look for one.
  if (k.identity !== 'natural' || !k.list) return 'absent';
  const managed = c.managed ?? {};
  const scope = Object.fromEntries(k.list.scope.map((f) => [f, managed[f] ?? null])) as JsonObject;
  const wanted = naturalKeyOf(k, managed);
  const found = (await listAll(client, k, scope)).find((r) => naturalKeyOf(k, r) === wanted);
  return fingerprint(k, found ?? null);
}

/** Why the saved plan may no longer be applied; empty when it still holds. */
export async function staleness(plan: Plan, docs: Document[], env: { name: string; base_url: string }, registry: Registry, client: Client, concurrency: number): Promise<string[]> {
  const reasons: string[] = [];
  if (plan.environment!.name !== env.name || plan.environment!.base_url !== env.base_url) {
    reasons.push(`the plan was made for environment ${plan.environment!.name} at ${plan.environment!.base_url}, not ${env.name} at ${env.base_url}`);
  }
  if (plan.configuration_hash !== configurationHash(docs)) reasons.push('the configuration (documents or variables) changed since the plan was made');
  const writes = plan.changes.filter((c) => c.action !== 'noop');
  const moved = await mapPool(writes, concurrency, async (c) => {
    const k = registry.get(c.kind);
    if (!k) return `${c.address}: unknown kind ${c.kind}`;
    const now = await fingerprintNow(k, c, client);
    return now === c.live_fingerprint ? undefined : `${c.address}: the live resource changed since the plan was made`;
  });
  return [...reasons, ...moved.filter((m): m is string => !!m)];
}
