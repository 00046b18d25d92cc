/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the items' order. */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Groups addresses into waves: each wave depends only on earlier waves. Assumes no cycles (validated). */
export function waves<T>(items: readonly T[], keyOf: (t: T) => string, depsOf: (t: T) => readonly string[]): T[][] {
  // Most setups refer to nothing: one wave, without the sets below (this runs before the first request is sent).
  if (!items.some((t) => depsOf(t).length)) return items.length ? [[...items]] : [];
  const known = new Set(items.map(keyOf));
  const done = new Set<string>();
  let rest = [...items];
  const out: T[][] = [];
  while (rest.length) {
    const ready = rest.filter((t) => depsOf(t).every((d) => done.has(d) || !known.has(d)));
    if (!ready.length) throw new Error('dependency cycle');
    out.push(ready);
    const now = new Set(ready);
    for (const t of ready) done.add(keyOf(t));
    rest = rest.filter((t) => !now.has(t));
  }
  return out;
}
