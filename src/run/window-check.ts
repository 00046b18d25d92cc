// The change windows checked on every plan (the events the plan's writes touch read from the platform, only those),
// and again when apply writes: a saved plan's verdict is the time it was made, not the time it is applied.
import { ApiError, errorLine, UserError } from '../errors.js';
import { readShapeOf } from '../kinds/access.js';
import type { Registry } from '../kinds/registry.js';
import { readPath } from '../kinds/paths.js';
import { unwrap } from '../live/list.js';
import type { Caller } from '../remote/client.js';
import type { ApplyResult, Change, Locate, Plan, WindowOverride } from '../types.js';
import { checkWindows, heldAddresses } from '../windows/evaluate.js';
import type { EventRead } from '../windows/live.js';
import type { Window } from '../windows/spec.js';
import type { RunOptions } from './options.js';

/** The events the plan's writes touch, each read once (null: the platform has none; an error: holds, fail closed). */
async function readEvents(ids: Set<string>, client: Caller, registry: Registry): Promise<Map<string, EventRead>> {
  const k = registry.get('Event');
  const out = new Map<string, EventRead>();
  if (!k) return out;
  await Promise.all(
    [...ids].map(async (id) => {
      try {
        const e = unwrap(readShapeOf(k), (await client.call('GET', readPath(k, { id, spec: {} }))).body);
        const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
        out.set(id, { id, title: text(e.title), start_time: text(e.start_time), status: text(e.status) });
      } catch (err) {
        out.set(id, err instanceof ApiError && err.status === 404 ? null : { error: errorLine(err) });
      }
    }),
  );
  return out;
}

export interface WindowCheck {
  windows: readonly Window[];
  environment: string;
  now: Date;
  overrides: WindowOverride[];
}

/** The windows' verdict on `plans` now, recorded in both (none without windows), each held change on its document's
 *  line (`locate`). Reads the linked events. */
export async function windowPlan(
  plans: { plan: Plan; shown: Plan; locate?: Locate },
  w: WindowCheck,
  client: Caller,
  registry: Registry,
) {
  if (!w.windows.length) {
    delete plans.plan.windows;
    delete plans.shown.windows;
    return;
  }
  const live = w.windows.some((x) => x.live);
  const ids = new Set(live ? plans.plan.changes.flatMap((c) => c.live_events ?? []) : []);
  const events = ids.size ? await readEvents(ids, client, registry) : new Map<string, EventRead>();
  const report = checkWindows(plans.plan.changes, w.windows, { ...w, events });
  for (const c of report.changes) {
    const where = plans.locate?.(c.address);
    if (where) Object.assign(c, where);
  }
  plans.plan.windows = report;
  plans.shown.windows = report;
}

/** The plan without what the windows hold now (and what waits on it), and the changes held back. */
export function withoutHeld(plan: Plan): { plan: Plan; held: Change[] } {
  const hold = heldAddresses(plan.windows, plan.changes);
  if (!hold.size) return { plan, held: [] };
  const held = plan.changes.filter((c) => hold.has(c.address));
  return { plan: { ...plan, changes: plan.changes.filter((c) => !hold.has(c.address)) }, held };
}

/** Why a held change waits, in one line: its windows and when it may go. */
export function heldReason(plan: Plan, address: string): string {
  const entry = plan.windows?.changes.find((c) => c.address === address);
  if (!entry) return 'held: it waits on a change a window holds';
  const names = entry.windows.filter((f) => !f.overridden).map((f) => `${f.window} (${f.reason})`);
  const next = entry.next_allowed ? `; next allowed at ${entry.next_allowed}` : '; next allowed time not known yet';
  return `held by window ${names.join(', ')}${next}`;
}

/** The windows of the run, checked at --now or at this moment. */
export const windowCheck = (
  opts: Pick<RunOptions, 'windows' | 'envName' | 'now' | 'clock' | 'overrides'>,
): WindowCheck => ({
  windows: opts.windows,
  environment: opts.envName,
  now: opts.now ?? opts.clock(),
  overrides: opts.overrides,
});

/** --all-or-nothing and a window holds something: nothing is written, each held change named. */
export function heldError(plan: Plan, held: Change[]): UserError {
  const each = held.map((c) => `${c.address} (${c.action}): ${heldReason(plan, c.address)}`).join('; ');
  return new UserError(
    `${held.length} change${held.length === 1 ? ' is' : 's are'} held by change windows and --all-or-nothing is given: nothing was written. ${each} (--override-window NAME=REASON lifts a window that allows it)`,
    { code: 'E_WINDOW' },
  );
}

/** The apply's result with the held changes in it, skipped, each with why and when it may go. */
export function withHeld(result: ApplyResult, plan: Plan, held: Change[]): ApplyResult {
  const entries = held.map((c) => ({
    address: c.address,
    action: c.action,
    outcome: 'skipped' as const,
    ...(c.id ? { id: c.id } : {}),
    error: heldReason(plan, c.address),
    error_code: 'E_WINDOW' as const,
  }));
  return {
    ...result,
    results: [...result.results, ...entries],
    summary: { ...result.summary, skipped: result.summary.skipped + entries.length },
  };
}
