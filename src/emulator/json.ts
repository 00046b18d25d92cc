// JSON text of the emulator's answers. Stored resources are immutable (the store freezes them), so each one's text
// is made once and kept: a list page is then a join, not a stringify of every resource that would hold up
// every other answer waiting on the emulator's one thread (and show up as latency the platform does not have).

const texts = new WeakMap<object, string>();

/** `v` and everything in it made read-only; a change must replace the resource, which also drops its text. */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** JSON.stringify of a JSON value, reusing the kept text of every frozen (stored) object in it. */
export function toJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Object.isFrozen(v)) {
    let text = texts.get(v);
    if (text === undefined) texts.set(v, (text = JSON.stringify(v)));
    return text;
  }
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : toJson(x))).join(',')}]`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v)) if (x !== undefined) parts.push(`${JSON.stringify(k)}:${toJson(x)}`);
  return `{${parts.join(',')}}`;
}
