// Durations as people write them in tapedeck.yaml: 2h, 30m, 1h30m, 90s, 1d (days of 24 hours).
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
const PATTERN = /^(?:\d+[dhms])+$/;

/** The duration in milliseconds, or undefined when `text` is not one (e.g. "2 hours", "1.5h", ""). */
export function parseDuration(text: string): number | undefined {
  if (!PATTERN.test(text)) return undefined;
  let ms = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([dhms])/g)) ms += Number(n) * UNIT_MS[unit];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A duration as the shortest text parseDuration reads back (0 is "0s"). */
export function formatDuration(ms: number): string {
  let rest = Math.round(ms / 1000) * 1000;
  let out = '';
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const n = Math.floor(rest / size);
    if (n) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}
