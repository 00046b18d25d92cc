// Durations as people write them: 2h, 30m, 1h30m, 90s, 500ms, 1d (days of 24 hours). One reader for tapedeck.yaml's
// windows, the agent's --interval and the flags that take seconds. Each unit takes a whole number: a fraction (1.5h)
// is refused with the spelling that means it (1h30m), rather than read as something else.
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const PATTERN = /^(?:\d+(?:ms|[dhms]))+$/;
const FRACTION = /^(\d*\.\d+)(ms|[dhms])$/;

/** The duration in milliseconds, or undefined when `text` is not one (e.g. "2 hours", "1.5h", ""). */
export function parseDuration(text: string): number | undefined {
  if (!PATTERN.test(text)) return undefined;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)(ms|[dhms])/g)) ms += Number(n) * UNIT_MS[unit];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A duration as the shortest text parseDuration reads back (0 is "0s"). */
export function formatDuration(ms: number): string {
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const n = Math.floor(rest / size);
    if (n) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

/** What a fraction such as "1.5h" means in whole units ("1h30m"), when it is a whole number of milliseconds. */
export function wholeUnits(text: string): string | undefined {
  const m = FRACTION.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]];
  return Number.isSafeInteger(ms) && ms > 0 ? formatDuration(ms) : undefined;
}

/** Why `text` is not a duration, with the whole-unit spelling of a fraction. */
export function durationProblem(text: string): string {
  const written = wholeUnits(text);
  return `${JSON.stringify(text)} is not a duration (e.g. 2h, 30m, 1h30m, 90s)${written ? `: write ${written}` : ''}`;
}
