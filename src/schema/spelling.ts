// How far a misspelt name is from the known ones: validation's did-you-mean, and the emulator's refusal of an enum
// name that is a slip of a known one (the platform would refuse it).

/**
 * The known enum value that `value` is a slip of: at most 2 edits away, and at most a third of the known value's
 * own part (after the prefix its enum's values share) is changed, so two short names that differ by design
 * (VIDEO_QUALITY_HD, VIDEO_QUALITY_SD) are not taken for slips of each other.
 */
export function slipOf(value: string, known: string[]): string | undefined {
  const prefix = known.reduce((p, k) => {
    let i = 0;
    while (i < p.length && p[i] === k[i]) i++;
    return p.slice(0, i);
  }, known[0] ?? '');
  const shared = prefix.slice(0, prefix.lastIndexOf('_') + 1);
  return known.find(
    (k) => k !== value && distance(value, k) <= Math.min(2, Math.floor((k.length - shared.length) / 3)),
  );
}

/** The known name closest to a misspelt one (edit distance at most 2), for "did you mean". */
export function closest(word: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDist = 3;
  for (const k of known) {
    const d = distance(word, k);
    if (d < bestDist) [best, bestDist] = [k, d];
  }
  return best;
}

/**
 * The known name a word in a user's list most likely means, for "did you mean": the same but for case, a misspelling
 * (closest), or an abbreviation (`prod` for `production`: a prefix of at least 3 letters), which is as likely a typo.
 */
export function meant(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  return (
    known.find((k) => k.toLowerCase() === lower) ??
    closest(word, [...known]) ??
    (lower.length >= 3 ? known.find((k) => k.toLowerCase().startsWith(lower)) : undefined)
  );
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}
