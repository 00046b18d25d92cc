// When an event is live, for a deny window `during: live_events`: from its status where the platform says it is
// under way (EVENT_STATUS_STARTED, PAUSED...), else from its start time, from `before` ahead of it until the
// event's expected length and `after` past it. An event that could not be read counts as live (fail closed).

/** An event as read for the windows: what its liveness is read from. */
export interface EventSeen {
  id: string;
  title?: string;
  start_time?: string;
  status?: string;
}

/** What reading an event gave: the event, null (the platform has no such event), or why it could not be read. */
export type EventRead = EventSeen | null | { error: string };

/** Statuses that say the event is over or will not take place then: its start time no longer makes it live. */
const OVER = new Set(['EVENT_STATUS_FINISHED', 'EVENT_STATUS_CANCELLED', 'EVENT_STATUS_POSTPONED']);

export interface LiveRule {
  beforeMs: number;
  afterMs: number;
  eventMs: number;
  statuses: Set<string>;
}

/** Why the event holds a change at `at`, and until when (undefined: until its status changes, not known now). */
export function liveness(
  read: EventRead | undefined,
  id: string,
  rule: LiveRule,
  at: Date,
): { reason: string; until?: Date } | undefined {
  if (read === undefined) return { reason: `event ${id} was not read: taken as live` };
  if (read === null) return undefined;
  if ('error' in read) return { reason: `event ${id} could not be read (${read.error}): taken as live` };
  const name = read.title ? `event ${id} (${read.title})` : `event ${id}`;
  if (read.status && rule.statuses.has(read.status)) return { reason: `${name} is live: its status is ${read.status}` };
  if ((read.status && OVER.has(read.status)) || !read.start_time) return undefined;
  const start = Date.parse(read.start_time);
  if (Number.isNaN(start)) return { reason: `${name} has a start time that cannot be read: taken as live` };
  const from = start - rule.beforeMs;
  const until = start + rule.eventMs + rule.afterMs;
  if (at.getTime() < from || at.getTime() >= until) return undefined;
  return {
    reason: `${name} starts at ${read.start_time}: live from ${new Date(from).toISOString()}`,
    until: new Date(until),
  };
}
