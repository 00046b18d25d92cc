// When a scheduled change window is open: a cron schedule read in an IANA time zone (croner does the calendar and
// the DST gaps and repeats) and a duration from each start. Pure: every answer is for a time the caller gives.
import { createRequire } from 'node:module';
import type { Cron } from 'croner';

// croner is loaded only when a project file has a scheduled window: most runs have none (start-up time).
const require = createRequire(import.meta.url);
let CronClass: (new (...args: ConstructorParameters<typeof Cron>) => Cron) | undefined;
const cronOf = (...args: ConstructorParameters<typeof Cron>): Cron =>
  new (CronClass ??= (require('croner') as { Cron: NonNullable<typeof CronClass> }).Cron)(...args);

/** A window's schedule, compiled: `cron` gives the starts, each open for `durationMs`. */
export interface Schedule {
  cron: Cron;
  durationMs: number;
}

/** Why a schedule cannot be used, for a located error; undefined when it can. */
export function scheduleProblem(schedule: string, timeZone: string | undefined): string | undefined {
  if (timeZone !== undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone }).format(0);
    } catch {
      return `time_zone: ${JSON.stringify(timeZone)} is not an IANA time zone name (e.g. Europe/Berlin, UTC)`;
    }
  }
  try {
    compile(schedule, timeZone, 1);
  } catch (e) {
    const why = (e as Error).message.replace(/^CronPattern: /, '');
    return `schedule: ${JSON.stringify(schedule)} is not a cron schedule of five fields (minute hour day-of-month month day-of-week, or @daily, @weekly...): ${why}`;
  }
  return undefined;
}

/** The schedule in `timeZone` (UTC without one); throws on a bad pattern (scheduleProblem says why first). */
export function compile(schedule: string, timeZone: string | undefined, durationMs: number): Schedule {
  // 5-part: minutes are the finest grain; legacy day-of-month OR day-of-week, as Vixie cron and Argo CD read it.
  const cron = cronOf(schedule, { paused: true, mode: '5-part', timezone: timeZone ?? 'UTC', legacyMode: true });
  return { cron, durationMs };
}

/** The start of the occurrence open at `at`, if one is: the latest start at or before it, open for the duration. */
export function openAt(s: Schedule, at: Date): { start: Date; end: Date } | undefined {
  // previousRuns is exclusive of its reference: a start at exactly `at` counts, so ask from just after it.
  const [start] = s.cron.previousRuns(1, new Date(at.getTime() + 1));
  if (!start) return undefined;
  const end = new Date(start.getTime() + s.durationMs);
  return at < end ? { start, end } : undefined;
}

/** When the window stops being open after `at` (it may be opened again by an occurrence that starts before it ends). */
export function closesAfter(s: Schedule, at: Date): Date | undefined {
  let open = openAt(s, at);
  if (!open) return undefined;
  // Occurrences that overlap (a duration longer than the gap between starts) keep it open: bounded, since a
  // schedule of every minute with a longer duration would otherwise never close.
  for (let i = 0; i < 1000; i++) {
    const next = openAt(s, open.end);
    if (!next) return open.end;
    open = next;
  }
  return undefined;
}

/** The next start strictly after `at`, if the schedule has one. */
export const opensAfter = (s: Schedule, at: Date): Date | undefined => s.cron.nextRun(at) ?? undefined;
