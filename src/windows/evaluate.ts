// What the change windows say of each change of a plan at one instant, by Argo CD's sync-window rules: no window
// guarding a change lets it through; where any allow window guards it, one of them must be open; an open deny
// window holds it back, whatever the allow windows say. A deny window `during: live_events` is open for a change
// linked to an event that is live (live.ts). An override (--override-window NAME=REASON) lifts that window's hold,
// unless the window says `override: false`. Pure: the time and the events read are given.
import type { Change, WindowFinding, WindowOverride, WindowsReport } from '../types.js';
import { closesAfter, openAt, opensAfter } from './schedule.js';
import { liveness, type EventRead } from './live.js';
import type { Window } from './spec.js';

export interface WindowContext {
  environment: string;
  now: Date;
  /** the events the changes link to, as read at `now` (absent: not read, which holds the change: fail closed) */
  events: ReadonlyMap<string, EventRead>;
  overrides: WindowOverride[];
}

/** How far ahead the next allowed time is looked for; past it the plan says it is not known. */
const HORIZON_MS = 366 * 86_400_000;

/** Why each guarding window holds `c` at `at`, or nothing when none does; `until` when each stops holding it. */
function holdsAt(c: Change, guarding: Window[], ctx: WindowContext, at: Date): WindowFinding[] {
  const found: WindowFinding[] = [];
  const allows = guarding.filter((w) => w.kind === 'allow');
  for (const w of guarding.filter((x) => x.kind === 'deny')) {
    if (w.schedule) {
      const open = openAt(w.schedule, at);
      if (open) {
        const until = closesAfter(w.schedule, at);
        found.push({
          window: w.name,
          kind: 'deny',
          reason: `open since ${iso(open.start)}`,
          until: until ? iso(until) : null,
        });
      }
    } else if (w.live) {
      for (const id of c.live_events ?? []) {
        const live = liveness(ctx.events.get(id), id, w.live, at);
        if (live)
          found.push({
            window: w.name,
            kind: 'deny',
            reason: live.reason,
            until: live.until ? iso(live.until) : null,
            event: id,
          });
      }
    }
  }
  if (allows.length && !allows.some((w) => w.schedule && openAt(w.schedule, at))) {
    for (const w of allows) {
      const next = w.schedule && opensAfter(w.schedule, at);
      found.push({
        window: w.name,
        kind: 'allow',
        reason: 'closed: a change it guards waits for it to open',
        until: next ? iso(next) : null,
      });
    }
  }
  return found;
}

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');

/** Whether an override lifts what the findings hold: every deny finding's window, or one of the allow windows. */
function lifted(found: WindowFinding[], overridden: ReadonlyMap<string, string>): boolean {
  const denies = found.filter((f) => f.kind === 'deny');
  const allows = found.filter((f) => f.kind === 'allow');
  return (
    denies.every((f) => overridden.has(f.window)) && (!allows.length || allows.some((f) => overridden.has(f.window)))
  );
}

/** The first time from `now` at which no window holds the change: null where that is not known (a live status,
 *  an event not read) or not within a year. Each step jumps to the next time something could let it through. */
function nextAllowed(c: Change, guarding: Window[], ctx: WindowContext, found: WindowFinding[]): string | null {
  let at = ctx.now;
  let holding = found;
  for (let step = 0; step < 200 && at.getTime() - ctx.now.getTime() < HORIZON_MS; step++) {
    if (!holding.length) return iso(at);
    const denies = holding.filter((f) => f.kind === 'deny');
    const allows = holding.filter((f) => f.kind === 'allow');
    if (denies.some((f) => f.until === null) || (allows.length && allows.every((f) => f.until === null))) return null;
    const afterDenies = Math.max(at.getTime(), ...denies.map((f) => Date.parse(f.until!)));
    const allowOpens = allows.length ? Math.min(...allows.filter((f) => f.until).map((f) => Date.parse(f.until!))) : 0;
    at = new Date(Math.max(afterDenies, allowOpens, at.getTime() + 1));
    holding = holdsAt(c, guarding, ctx, at);
  }
  return null;
}

/** The windows' verdict on every write of the plan at `ctx.now`: the changes they hold, each with the windows that
 *  hold it (overridden or not) and when it may go next. */
export function checkWindows(
  changes: readonly Change[],
  windows: readonly Window[],
  ctx: WindowContext,
): WindowsReport {
  const overridden = new Map(ctx.overrides.map((o) => [o.window, o.reason]));
  const held: WindowsReport['changes'] = [];
  for (const c of changes) {
    const guarding = windows.filter((w) => w.guards(c, ctx.environment));
    if (!guarding.length) continue;
    const found = holdsAt(c, guarding, ctx, ctx.now);
    if (!found.length) continue;
    const isLifted = lifted(found, overridden);
    for (const f of found) if (overridden.has(f.window)) f.overridden = overridden.get(f.window)!;
    held.push({
      address: c.address,
      action: c.action,
      held: !isLifted,
      next_allowed: nextAllowed(c, guarding, ctx, found),
      windows: found,
    });
  }
  return { checked_at: iso(ctx.now), checked: windows.length, changes: held, overrides: ctx.overrides };
}

/** The addresses no apply may write now: those held, and every change waiting on one (its reference or its order). */
export function heldAddresses(report: WindowsReport | undefined, changes: readonly Change[]): Set<string> {
  const out = new Set((report?.changes ?? []).filter((c) => c.held).map((c) => c.address));
  if (!out.size) return out;
  // Changes are in apply order: what one waits on comes before it, so one pass carries the hold along.
  for (const c of changes)
    if ([...(c.depends_on ?? []), ...(c.requires ?? [])].some((a) => out.has(a))) out.add(c.address);
  return out;
}
