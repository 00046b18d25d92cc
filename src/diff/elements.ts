// What changed inside an array or map that the wire replaces whole: for display only (the PATCH still carries the
// whole field). Elements are matched by the schema's x-key where it has one, so an inserted price reads as one
// price added rather than every later price "repriced"; arrays without a key are aligned by their longest common
// subsequence, not by position; sets by their members. Pure, and in document order: the order of the desired value,
// with what was removed shown where it stood.
import type { Field } from '../schema/model.js';
import { deepEqual, isObject, stableStringify, valueAt, type Json } from '../schema/values.js';

export interface ElementChange {
  /** move: a keyed element at another position (before/after are its positions) */
  op: 'add' | 'remove' | 'change' | 'move';
  /** where inside the field: `[video_quality=VIDEO_QUALITY_720P].video_bitrate`, `[3]`, `.de`; '' the field itself */
  at: string;
  before?: Json;
  after?: Json;
  /** the model of the value where the schema has one (a Money is shown as an amount) */
  field?: Field;
}

/** Above this many cells (elements before x after, once the common ends are trimmed) no LCS is tried. */
const LCS_CELLS = 250_000;

/**
 * The changes inside `before` → `after` when both are arrays or both are objects (an empty list otherwise: the
 * value is shown whole). Values are normalised ones, as the diff holds them.
 */
export function elementChanges(
  field: Field | undefined,
  before: Json | undefined,
  after: Json | undefined,
): ElementChange[] {
  const both = (Array.isArray(before) && Array.isArray(after)) || (isObject(before) && isObject(after));
  if (!both || field?.money) return [];
  const out: ElementChange[] = [];
  diffValue(field, before, after, '', out);
  return out;
}

function diffValue(
  field: Field | undefined,
  b: Json | undefined,
  a: Json | undefined,
  at: string,
  out: ElementChange[],
): void {
  if (deepEqual(b ?? null, a ?? null)) return;
  if (field?.money || !((Array.isArray(b) && Array.isArray(a)) || (isObject(b) && isObject(a)))) {
    out.push({ op: 'change', at, before: b, after: a, ...(field ? { field } : {}) });
    return;
  }
  if (Array.isArray(b) && Array.isArray(a)) return diffArray(field, b, a, at, out);
  const [bo, ao] = [b as Record<string, Json>, a as Record<string, Json>];
  const message = field?.type === 'message';
  // Document order: the keys of the desired side as written, then those only the live side has.
  for (const k of [...Object.keys(ao), ...Object.keys(bo).filter((k) => !Object.hasOwn(ao, k))]) {
    const f = message ? field.props?.[k] : undefined;
    const where = `${at}${label(k)}`;
    // A field of a message is set or unset (a change); an entry of a free-form map comes and goes.
    if (!message && !Object.hasOwn(bo, k)) out.push({ op: 'add', at: where, after: ao[k] });
    else if (!message && !Object.hasOwn(ao, k)) out.push({ op: 'remove', at: where, before: bo[k] });
    else diffValue(f, bo[k], ao[k], where, out);
  }
}

const label = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

function diffArray(field: Field | undefined, b: Json[], a: Json[], at: string, out: ElementChange[]): void {
  const items = field?.items;
  const start = out.length;
  const pos: number[] = [];
  const emit = (p: number, c: ElementChange) => {
    out.push(c);
    pos.push(p);
  };
  if (field?.key && items) keyed(field.key, items, !!field.set, b, a, at, emit);
  else if (field?.set) {
    // A set's members come and go, in the sorted order the set is kept in; where they stood means nothing.
    const [bs, as] = [new Set(b.map(stableStringify)), new Set(a.map(stableStringify))];
    const rank = new Map([...new Set([...bs, ...as])].sort().map((s, n) => [s, n]));
    for (const x of b)
      if (!as.has(stableStringify(x)))
        emit(rank.get(stableStringify(x))!, { op: 'remove', at, before: x, ...fieldOf(items) });
    for (const x of a)
      if (!bs.has(stableStringify(x)))
        emit(rank.get(stableStringify(x))!, { op: 'add', at, after: x, ...fieldOf(items) });
  } else aligned(items, b, a, at, emit);
  // Stable sort by position in the desired value: removals stand after what stood before them.
  const mine = out.splice(start).map((c, i) => ({ c, p: pos[i], i }));
  mine.sort((x, y) => x.p - y.p || x.i - y.i);
  out.push(...mine.map((m) => m.c));
}

const fieldOf = (f: Field | undefined) => (f ? { field: f } : {});
type Emit = (pos: number, c: ElementChange) => void;

/** Elements matched by their key (the n-th of equal keys with the n-th); a matched one out of order is a move. */
function keyed(key: string[], items: Field, set: boolean, b: Json[], a: Json[], at: string, emit: Emit): void {
  const ids = (xs: Json[]) => {
    const seen = new Map<string, number>();
    return xs.map((x) => {
      const k = stableStringify(key.map((p) => valueAt(x, p) ?? null));
      const n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      return { k: `${k}#${n}`, name: keyLabel(key, x, n) };
    });
  };
  const [bi, ai] = [ids(b), ids(a)];
  const inAfter = new Map(ai.map((x, j) => [x.k, j]));
  const inBefore = new Map(bi.map((x, i) => [x.k, i]));
  const pairs = ai.flatMap((x, j) => (inBefore.has(x.k) ? [[inBefore.get(x.k)!, j]] : []));
  const stay = set ? new Set(pairs.map(([i]) => i)) : increasing(pairs.map(([i]) => i));
  let anchor = -0.5;
  const removedAt = new Map<number, number>();
  bi.forEach((x, i) => {
    const j = inAfter.get(x.k);
    if (j === undefined) removedAt.set(i, anchor + 0.25);
    else anchor = j;
  });
  for (const [i, p] of removedAt) emit(p, { op: 'remove', at: `${at}${bi[i].name}`, before: b[i], field: items });
  ai.forEach((x, j) => {
    const i = inBefore.get(x.k);
    const where = `${at}${x.name}`;
    if (i === undefined) return emit(j, { op: 'add', at: where, after: a[j], field: items });
    if (!stay.has(i)) emit(j, { op: 'move', at: where, before: i, after: j });
    const inner: ElementChange[] = [];
    diffValue(items, b[i], a[j], where, inner);
    for (const c of inner) emit(j, c);
  });
}

/** `[currency_code=EUR, billing_period=BILLING_PERIOD_MONTHLY]`: the set parts of the key, by their last name; a
 *  value that is not a plain word is quoted as JSON, so a label cannot forge a line, a bracket or another key. */
function keyLabel(key: string[], x: Json, n: number): string {
  const parts = key.flatMap((p) => {
    const v = valueAt(x, p);
    return v === undefined
      ? []
      : [`${p.split('.').pop()}=${typeof v === 'string' && /^[\w.:/-]+$/.test(v) ? v : JSON.stringify(v)}`];
  });
  const named = parts.length ? parts.join(', ') : `${key.map((p) => p.split('.').pop()).join(', ')} unset`;
  return `[${named}${n > 1 ? `, #${n}` : ''}]`;
}

/** Arrays of plain values up to this long (as JSON) read as one value; longer ones element by element. */
const SHORT_LIST = 80;

/**
 * A value as the leaves a reviewer reads, each by where it is (`[currency_code=EUR, ...].price`): a message or map
 * by its fields, an array of messages by its elements (by key where the schema has one), a Money as one amount.
 * For whole values that a create sets or an element added or removed brings: they read like an update's rows.
 */
export function leaves(field: Field | undefined, v: Json | undefined, at: string): ElementChange[] {
  if (field?.money || v === null || v === undefined || typeof v !== 'object')
    return [{ op: 'change', at, after: v, ...fieldOf(field) }];
  if (Array.isArray(v)) {
    const plain = v.every((x) => x === null || typeof x !== 'object');
    if (!v.length || (plain && JSON.stringify(v).length <= SHORT_LIST))
      return [{ op: 'change', at, after: v, ...fieldOf(field) }];
    const seen = new Map<string, number>();
    return v.flatMap((x, i) => {
      if (!field?.key) return leaves(field?.items, x, `${at}[${i}]`);
      const k = stableStringify(field.key.map((p) => valueAt(x, p) ?? null));
      seen.set(k, (seen.get(k) ?? 0) + 1);
      return leaves(field.items, x, `${at}${keyLabel(field.key, x, seen.get(k)!)}`);
    });
  }
  const entries = Object.entries(v);
  if (!entries.length) return [{ op: 'change', at, after: v, ...fieldOf(field) }];
  return entries.flatMap(([k, x]) =>
    leaves(field?.type === 'message' ? field.props?.[k] : undefined, x, `${at}${label(k)}`),
  );
}

/** The before-positions that keep their order (a longest increasing subsequence): the others have moved. */
function increasing(seq: number[]): Set<number> {
  const tails: number[] = [];
  const prev: number[] = [];
  seq.forEach((v, idx) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (seq[tails[mid]] < v) lo = mid + 1;
      else hi = mid;
    }
    prev[idx] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = idx;
  });
  const keep = new Set<number>();
  for (let idx = tails.length ? tails[tails.length - 1] : -1; idx >= 0; idx = prev[idx]) keep.add(seq[idx]);
  return keep;
}

/**
 * Elements without a key: aligned by their longest common subsequence. Between two kept elements, what was
 * removed and what was added are paired in order and diffed inside (a stream whose bitrate changed); the rest are
 * removals and additions, named by position.
 */
function aligned(items: Field | undefined, b: Json[], a: Json[], at: string, emit: Emit): void {
  const [bs, as] = [b.map(stableStringify), a.map(stableStringify)];
  const [head, tail] = commonEnds(bs, as);
  const kept = lcs(bs.slice(head, b.length - tail), as.slice(head, a.length - tail)).map(([i, j]) => [
    i + head,
    j + head,
  ]);
  let [pi, pj] = [head, head];
  for (const [ki, kj] of [...kept, [b.length - tail, a.length - tail]]) {
    const gone = range(pi, ki);
    const came = range(pj, kj);
    const paired = Math.min(gone.length, came.length);
    for (let n = 0; n < paired; n++) {
      const inner: ElementChange[] = [];
      diffValue(items, b[gone[n]], a[came[n]], `${at}[${came[n]}]`, inner);
      for (const c of inner) emit(came[n], c);
    }
    // Removals stand after the pairs of their stretch, before its additions.
    const removedAt = paired ? came[paired - 1] + 0.5 : pj - 0.5;
    for (const i of gone.slice(paired))
      emit(removedAt, { op: 'remove', at: `${at}[${i}]`, before: b[i], ...fieldOf(items) });
    for (const j of came.slice(paired)) emit(j, { op: 'add', at: `${at}[${j}]`, after: a[j], ...fieldOf(items) });
    [pi, pj] = [ki + 1, kj + 1];
  }
}

/** How many items two sequences share at their start, and then at their end (not overlapping the start). */
export function commonEnds(x: ArrayLike<unknown>, y: ArrayLike<unknown>): [number, number] {
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  return [head, tail];
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, n) => from + n);

/** Index pairs of a longest common subsequence; none when the table would be too large (all of it then differs). */
function lcs(x: string[], y: string[]): Array<[number, number]> {
  if (!x.length || !y.length || x.length * y.length > LCS_CELLS) return [];
  const w = y.length + 1;
  const t = new Uint32Array((x.length + 1) * w);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      t[i * w + j] = x[i] === y[j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
    }
  }
  const out: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < x.length && j < y.length;) {
    if (x[i] === y[j]) out.push([i++, j++]);
    else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) i++;
    else j++;
  }
  return out;
}
