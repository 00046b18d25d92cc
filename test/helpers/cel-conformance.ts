// The official CEL conformance cases (cel-spec's textproto suites, as @bufbuild/cel-spec ships them in JSON form),
// read into a form no CEL library owns: each case's expression, its declared variables, their values and what it must
// give. A value is kept as a tagged tree, and compared as its canonical text, so one library's numbers, maps and
// timestamps are judged by the same measure as another's.
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js';

/** A CEL value, by its CEL type. */
export type Neutral =
  | { int: bigint }
  | { uint: bigint }
  | { double: number }
  | { string: string }
  | { bool: boolean }
  | { bytes: Uint8Array }
  | { null: true }
  | { list: Neutral[] }
  | { map: Array<[Neutral, Neutral]> }
  | { timestamp: { seconds: bigint; nanos: number } }
  | { duration: { seconds: bigint; nanos: number } }
  | { type: string };

/** A declared variable's CEL type, in CEL's own spelling (`int`, `list<int>`, `map<string, string>`). */
export type CelTypeName = string;

export interface ConformanceCase {
  /** suite/section/name, as the cel-spec files name it */
  path: string;
  expr: string;
  /** the variables the case declares, by name */
  decls: Record<string, CelTypeName>;
  bindings: Record<string, Neutral>;
  /** a value, or an error at check or evaluation */
  expect: { value: Neutral } | { error: true };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const PRIMITIVES: Record<string, string> = {
  BOOL: 'bool',
  INT64: 'int',
  UINT64: 'uint',
  DOUBLE: 'double',
  STRING: 'string',
  BYTES: 'bytes',
};
const WELL_KNOWN: Record<string, string> = {
  'google.protobuf.Timestamp': 'google.protobuf.Timestamp',
  'google.protobuf.Duration': 'google.protobuf.Duration',
};

/** A declared type in CEL's spelling, or undefined for one a rule can never see (a protobuf message). */
function typeName(t: JsonObject): string | undefined {
  if (typeof t.primitive === 'string') return PRIMITIVES[t.primitive];
  if ('null' in t) return 'null';
  if (t.dyn !== undefined) return 'dyn';
  if (typeof t.messageType === 'string') return WELL_KNOWN[t.messageType];
  if (t.listType) {
    const e = typeName((t.listType as JsonObject).elemType as JsonObject);
    return e && `list<${e}>`;
  }
  if (t.mapType) {
    const m = t.mapType as JsonObject;
    const [k, v] = [typeName(m.keyType as JsonObject), typeName(m.valueType as JsonObject)];
    return k && v && `map<${k}, ${v}>`;
  }
  return undefined;
}

/** `123.5s` (protobuf JSON's Duration) as seconds and nanoseconds. */
export function parseDuration(text: string): { seconds: bigint; nanos: number } {
  const m = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  const sign = m[1] ? -1 : 1;
  return { seconds: BigInt(sign) * BigInt(m[2]), nanos: sign * Number((m[3] ?? '').padEnd(9, '0')) };
}

/** An RFC 3339 time in UTC (`...Z`, as the suites write them) as seconds and nanoseconds since 1970. */
export function parseTimestamp(text: string): { seconds: bigint; nanos: number } {
  const m = /^(.*?)(?:\.(\d{1,9}))?Z$/.exec(text);
  const ms = m ? Date.parse(`${m[1]}Z`) : NaN;
  if (!m || Number.isNaN(ms)) throw new Error(`not a timestamp: ${text}`);
  return { seconds: BigInt(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

/** A cel.expr.Value in protobuf JSON as a Neutral, or undefined for a protobuf message a rule never sees. */
function neutral(v: JsonObject): Neutral | undefined {
  if ('int64Value' in v) return { int: BigInt(v.int64Value as string) };
  if ('uint64Value' in v) return { uint: BigInt(v.uint64Value as string) };
  if ('doubleValue' in v) return { double: Number(v.doubleValue) };
  if ('stringValue' in v) return { string: v.stringValue as string };
  if ('boolValue' in v) return { bool: v.boolValue as boolean };
  if ('bytesValue' in v) return { bytes: Uint8Array.from(Buffer.from(v.bytesValue as string, 'base64')) };
  if ('nullValue' in v) return { null: true };
  if ('typeValue' in v) return { type: v.typeValue as string };
  if ('listValue' in v) {
    const items = (((v.listValue as JsonObject).values ?? []) as JsonObject[]).map(neutral);
    return items.every(Boolean) ? { list: items as Neutral[] } : undefined;
  }
  if ('mapValue' in v) {
    const entries = (((v.mapValue as JsonObject).entries ?? []) as JsonObject[]).map((e) => [
      neutral(e.key as JsonObject),
      neutral(e.value as JsonObject),
    ]);
    return entries.every(([k, x]) => k && x) ? { map: entries as Array<[Neutral, Neutral]> } : undefined;
  }
  if ('objectValue' in v) {
    const o = v.objectValue as JsonObject;
    if (o['@type'] === 'type.googleapis.com/google.protobuf.Timestamp')
      return { timestamp: parseTimestamp(o.value as string) };
    if (o['@type'] === 'type.googleapis.com/google.protobuf.Duration')
      return { duration: parseDuration(o.value as string) };
  }
  return undefined;
}

/** The canonical text of a value: equal values (CEL's equality, maps in any order) give equal texts. */
export function canonical(v: Neutral): string {
  if ('int' in v) return `int(${v.int})`;
  if ('uint' in v) return `uint(${v.uint})`;
  if ('double' in v)
    return Number.isNaN(v.double) ? 'double(NaN)' : `double(${Object.is(v.double, -0) ? 0 : v.double})`;
  if ('string' in v) return JSON.stringify(v.string);
  if ('bool' in v) return String(v.bool);
  if ('bytes' in v) return `b(${Buffer.from(v.bytes).toString('hex')})`;
  if ('null' in v) return 'null';
  if ('type' in v) return `type(${v.type})`;
  if ('list' in v) return `[${v.list.map(canonical).join(', ')}]`;
  if ('map' in v)
    return `{${v.map
      .map(([k, x]) => `${canonical(k)}: ${canonical(x)}`)
      .sort()
      .join(', ')}}`;
  if ('timestamp' in v) return `timestamp(${v.timestamp.seconds}s ${v.timestamp.nanos}ns)`;
  return `duration(${v.duration.seconds}s ${v.duration.nanos}ns)`;
}

/** What a case needs that rules never have: protobuf messages, a container, or a check switched off. */
function outOfReach(t: JsonObject): boolean {
  const text = JSON.stringify(t).replace(/google\.protobuf\.(Timestamp|Duration)/g, '');
  return 'container' in t || 'disableCheck' in t || /TestAllTypes|google\.protobuf\.|cel\.expr\./.test(text);
}

function toCase(path: string, t: JsonObject): ConformanceCase | undefined {
  if (outOfReach(t)) return undefined;
  const decls: Record<string, string> = {};
  for (const d of (t.typeEnv ?? []) as JsonObject[]) {
    const type = typeName(((d.ident as JsonObject | undefined)?.type ?? {}) as JsonObject);
    if (!type) return undefined;
    decls[d.name as string] = type;
  }
  const bindings: Record<string, Neutral> = {};
  for (const [name, b] of Object.entries((t.bindings ?? {}) as Record<string, JsonObject>)) {
    const value = neutral(b.value as JsonObject);
    if (!value) return undefined;
    bindings[name] = value;
  }
  if ('evalError' in t) return { path, expr: t.expr as string, decls, bindings, expect: { error: true } };
  // A case without a value expects `true`.
  const value = 'value' in t ? neutral(t.value as JsonObject) : { bool: true };
  return value && { path, expr: t.expr as string, decls, bindings, expect: { value } };
}

interface SerializedSuite {
  name: string;
  suites?: SerializedSuite[];
  tests?: Array<{ original: JsonObject }>;
}

/** Every case of the top-level suites named (`string`, `timestamps`, ...) that a rule could express. */
export function conformanceCases(suites: readonly string[]): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  const walk = (s: SerializedSuite, path: string[]) => {
    for (const sub of s.suites ?? []) walk(sub, [...path, sub.name]);
    for (const t of s.tests ?? []) {
      const c = toCase([...path, t.original.name as string].join('/'), t.original);
      if (c) out.push(c);
    }
  };
  for (const s of (tests as SerializedSuite).suites ?? []) if (suites.includes(s.name)) walk(s, [s.name]);
  return out;
}
