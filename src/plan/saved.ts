// Saved plans: written with a checksum, read back checked against the plan file's JSON Schema, its checksum and
// the tapedeck version, and refused when what they were made from has moved (configuration, environment, state
// serial), or when the plan made again now would not be the same, change by change.
import { createHash } from 'node:crypto';
import { UserError } from '../errors.js';
import { isObject } from '../schema/values.js';
import type { Plan, StateRef } from '../types.js';
import { validator, describe } from '../validate/schema.js';
import { tapedeckVersion } from '../version.js';
import { readBounded } from '../util/files.js';

const MAX_PLAN_BYTES = 512 * 1024 * 1024;

/** JSON with every object's keys sorted; like JSON.stringify, it leaves out keys holding undefined. */
const canonical = (v: unknown) =>
  JSON.stringify(v, (_, x: unknown) =>
    isObject(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );

/** sha-256 of the plan without its checksum: any edit of a saved plan changes it. */
export function planChecksum(plan: Plan): string {
  const { checksum: _, ...rest } = plan;
  return createHash('sha256').update(canonical(rest)).digest('hex');
}

export const withChecksum = (plan: Plan): Plan => ({ ...plan, checksum: planChecksum(plan) });

export function readSavedPlan(file: string): Plan {
  let data: unknown;
  try {
    // Bounded: a plan of 100,000 documents is some hundreds of MiB at most; /dev/zero must not hang the run.
    const bytes = readBounded(file, MAX_PLAN_BYTES);
    if (!bytes)
      throw new UserError(`saved plan ${file} is over ${MAX_PLAN_BYTES} bytes: not a tapedeck plan`, {
        code: 'E_PLAN_INVALID',
      });
    data = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`saved plan ${file}: ${code ? `cannot read it (${code})` : 'not valid JSON'}`, {
      code: 'E_PLAN_INVALID',
    });
  }
  const version = (data as { tapedeck_version?: unknown } | null)?.tapedeck_version;
  if (typeof version === 'string' && version !== tapedeckVersion()) {
    throw new UserError(
      `saved plan ${file} was made by tapedeck ${version}; this is tapedeck ${tapedeckVersion()}: make the plan again`,
      { code: 'E_PLAN_INVALID' },
    );
  }
  const valid = validator('plan.schema.json');
  if (!valid(data)) {
    const problems = (valid.errors ?? []).slice(0, 5).map((e) => describe(e).message);
    throw new UserError(
      `${file} is not a tapedeck plan of this version: ${problems.join('; ')} (make it with \`tapedeck plan --out\`)`,
      { code: 'E_PLAN_INVALID' },
    );
  }
  const plan = data as unknown as Plan;
  if (plan.checksum !== planChecksum(plan))
    throw new UserError(
      `saved plan ${file} was edited after it was made (its checksum does not match): make the plan again`,
      { code: 'E_PLAN_INVALID' },
    );
  return plan;
}

/** Where things stand when a saved plan is to be applied (the plan made again has all of it). */
export interface Now {
  environment: { name: string; base_url: string };
  configuration_hash: string;
  state: StateRef;
}

/** Why the saved plan may not be applied, by what it was made from; empty when that still holds. Pure. */
export function mismatches(plan: Plan, now: Now): string[] {
  const reasons: string[] = [];
  const env = now.environment;
  if (plan.environment.name !== env.name || plan.environment.base_url !== env.base_url) {
    reasons.push(
      `the plan was made for environment ${plan.environment.name} at ${plan.environment.base_url}, not ${env.name} at ${env.base_url}`,
    );
  }
  if (plan.configuration_hash !== now.configuration_hash)
    reasons.push('the configuration (documents or variables) changed since the plan was made');
  const { lineage, serial } = now.state;
  if (lineage !== plan.state.lineage || serial !== plan.state.serial) {
    // A saved plan applies at most once: its own apply moves the serial on.
    const name = (l: string) => l || 'a new state';
    reasons.push(
      `the state moved since the plan was made (serial ${plan.state.serial} of ${name(plan.state.lineage)}, now ${serial} of ${name(lineage)}): it was applied already, or another apply ran`,
    );
  }
  return reasons;
}

/**
 * Why the saved plan's changes are not the ones the documents, the state and the platform give now (`fresh`: the
 * plan made again): a live resource moved, or the saved change was altered (a hand-made checksum hides an edit,
 * not a request that the documents do not give). Pure.
 */
export function changeDifferences(saved: Plan, fresh: Plan): string[] {
  const now = new Map(fresh.changes.map((c) => [c.address, c]));
  const reasons: string[] = [];
  for (const c of saved.changes) {
    const f = now.get(c.address);
    now.delete(c.address);
    if (!f) reasons.push(`${c.address}: no document gives this change now`);
    else if (f.live_fingerprint !== c.live_fingerprint)
      reasons.push(`${c.address}: the live resource changed since the plan was made`);
    else if (canonical(f) !== canonical(c))
      reasons.push(
        `${c.address}: the saved change is not what the documents and the state give (the plan file was altered?)`,
      );
  }
  for (const address of now.keys()) reasons.push(`${address}: not in the saved plan`);
  return reasons;
}
