// The documents sorted by address: the plan's apply order and the configuration hash both start from it.
// Addresses sort naturally, as a person reads them: `bulk-2` before `bulk-10`.
import type { Document } from '../types.js';

/** A sorted copy (made for each caller: a second sort costs less than the bench's noise, docs/performance.md). */
export function byAddress(docs: readonly Document[]): Document[] {
  return [...docs].sort((a, b) => naturalCompare(a.address, b.address));
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Natural order: runs of digits compare by their number (`2` < `10`; `02` and `2` equal, then by the text), the
 * rest by UTF-16 code unit, as before. Walks both strings in place: no pieces are made per address.
 */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [x, y] = [a.charCodeAt(i), b.charCodeAt(j)];
    if (isDigit(x) && isDigit(y)) {
      let [ei, ej] = [i, j];
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      // Without leading zeros, a longer run is a larger number; runs as long compare digit by digit.
      let [si, sj] = [i, j];
      while (si < ei - 1 && a.charCodeAt(si) === 48) si++;
      while (sj < ej - 1 && b.charCodeAt(sj) === 48) sj++;
      if (ei - si !== ej - sj) return ei - si - (ej - sj);
      for (; si < ei; si++, sj++) if (a.charCodeAt(si) !== b.charCodeAt(sj)) return a.charCodeAt(si) - b.charCodeAt(sj);
      [i, j] = [ei, ej];
    } else {
      if (x !== y) return x - y;
      i++;
      j++;
    }
  }
  if (a.length - i !== b.length - j) return a.length - i - (b.length - j);
  return a < b ? -1 : a > b ? 1 : 0;
}
