// What `tapedeck budget status` shows of a platform's bucket: the budget this environment configures, what the
// fleet learnt (the platform's published limit, the rate learnt from 429s, a pause), the ceiling that results, and
// who holds leases now. Pure: the command reads the document and the store's clock, this makes the view of them.
import { ceilingOf, emptyBucket, probing, type BucketDoc, type Role } from './allocate.js';
import type { BudgetSettings } from './settings.js';

export interface StatusView {
  format_version: 1;
  origin: string;
  store: string;
  budget: { max_rps?: number; share?: number; priority: Record<Role, number> } | null;
  platform_limit: number | null;
  learnt_rps: number | null;
  paused_ms: number;
  /** the fleet's ceiling now, requests a second (null: nothing limits it) */
  ceiling_rps: number | null;
  /** the ceiling is the probe's: a share waits for an answer to tell the platform's limit */
  probing: boolean;
  holders: Array<{
    host: string;
    pid: number;
    role: Role;
    configuration: string;
    environment: string;
    weight: number;
    rate_rps: number | null;
    lease_ms_left: number;
    held_since: string;
    waited_ms: number;
  }>;
}

const finite = (n: number | undefined | null) => (n === undefined || n === null || !Number.isFinite(n) ? null : n);

export function statusView(
  doc: BucketDoc | undefined,
  now: number,
  where: { origin: string; store: string },
  settings: BudgetSettings | undefined,
): StatusView {
  const live = Object.values(doc?.holders ?? {}).filter((h) => h.until > now);
  const mine = settings ? [{ max_rps: settings.max_rps, share: settings.share }] : [];
  const bucket = doc ?? emptyBucket();
  return {
    format_version: 1,
    ...where,
    budget: settings
      ? {
          ...(settings.max_rps !== undefined ? { max_rps: settings.max_rps } : {}),
          ...(settings.share !== undefined ? { share: settings.share } : {}),
          priority: settings.priority,
        }
      : null,
    platform_limit: doc?.platform_limit ?? null,
    learnt_rps: finite(doc?.learnt),
    paused_ms: Math.max(0, (doc?.paused_until ?? now) - now),
    ceiling_rps: finite(ceilingOf(bucket, [...live, ...mine])),
    probing: probing(bucket, [...live, ...mine]),
    holders: live.map((h) => ({
      host: h.host,
      pid: h.pid,
      role: h.role,
      configuration: h.configuration,
      environment: h.environment,
      weight: h.weight,
      rate_rps: h.rate,
      lease_ms_left: Math.round(h.until - now),
      held_since: new Date(h.since).toISOString(),
      waited_ms: h.waited_ms,
    })),
  };
}

const rps = (n: number | null) => (n === null ? 'no limit' : `${n.toFixed(1)} requests/s`);

export function statusText(v: StatusView): string {
  const lines = [`budget of ${v.origin} (kept in ${v.store})`];
  lines.push(
    v.budget
      ? `  configured here: ${[v.budget.max_rps !== undefined ? `max_rps ${v.budget.max_rps}` : '', v.budget.share !== undefined ? `share ${v.budget.share}` : ''].filter(Boolean).join(', ')}; priority apply ${v.budget.priority.apply}, agent ${v.budget.priority.agent}, plan ${v.budget.priority.plan}`
      : '  configured here: no budget (the environment has none)',
  );
  lines.push(`  platform's published limit: ${v.platform_limit === null ? 'none seen' : rps(v.platform_limit)}`);
  lines.push(`  learnt from 429s: ${v.learnt_rps === null ? 'nothing binding' : rps(v.learnt_rps)}`);
  if (v.paused_ms) lines.push(`  paused by a Retry-After for ${(v.paused_ms / 1000).toFixed(1)} s more`);
  const probe = v.probing ? " (a probe: no answer has told the platform's limit yet, which a share is of)" : '';
  lines.push(`  fleet ceiling now: ${rps(v.ceiling_rps)}${probe}`);
  lines.push(v.holders.length ? `leases (${v.holders.length}):` : 'leases: none (no tapedeck process is sending now)');
  for (const h of v.holders)
    lines.push(
      `  ${h.host} pid ${h.pid}: ${h.role} of ${h.configuration} (${h.environment}), weight ${h.weight}, ${rps(h.rate_rps)}, ends in ${(h.lease_ms_left / 1000).toFixed(1)} s, waited ${(h.waited_ms / 1000).toFixed(1)} s`,
    );
  return `${lines.join('\n')}\n`;
}
