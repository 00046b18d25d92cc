// Documents checked against their kind's schema and the cross-document rules; every problem reported at once.
import type { Registry } from '../kinds/registry.js';
import { namingFields } from '../kinds/naming.js';
import type { KindDef } from '../kinds/types.js';
import type { LoadedDoc } from '../load/load.js';
import { allSchemas, escapePointer, fieldAtPointer, resourceModel, unescapePointer, type Field } from '../schema/model.js';
import { moneySignProblem } from '../schema/money.js';
import { canonicalInt64, canonicalTimestamp, emptyMessagesAsNull, isObject, printable, type JsonObject } from '../schema/values.js';
import type { Document, Issue, SourceDoc } from '../types.js';
import { describe, dotted, slipOf, validator } from './schema.js';

/** Messages quote keys and values of the document: printable() keeps each on one line and its text visible. */
const issueAt = (src: SourceDoc, pointer: string, message: string, severity: Issue['severity'] = 'error'): Issue => ({
  file: src.file, pos: nearestPos(src, pointer), pointer, message: printable(message), severity,
});

/** The position of a pointer, or of its nearest ancestor that has one. */
export function nearestPos(src: SourceDoc, pointer: string) {
  let p = pointer;
  for (;;) {
    src.positions ??= src.locate?.(src.index) ?? new Map();
    const pos = src.positions.get(p);
    if (pos || p === '') return pos;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

/** Why a value the int64 schema lets through (an integer, a decimal string) is still no int64, or undefined.
 *  `written`: an integer written beyond 2^53, held as its text (LoadedDoc.wideIntegers), shown unquoted. */
function int64Problem(v: unknown, written: boolean): string | undefined {
  if (canonicalInt64(v) !== undefined || !(typeof v === 'number' ? Number.isInteger(v) : /^-?\d+$/.test(String(v).trim()))) return undefined;
  const shown = typeof v === 'string' && !written ? JSON.stringify(v) : String(v);
  if (typeof v === 'number' && Math.abs(v) < 2 ** 63) return `${shown} was written as a float beyond 2^53, which cannot be read exactly: write it as an integer`;
  return `${shown} is outside the int64 range (-9223372036854775808 to 9223372036854775807)`;
}

/** The checks the schema cannot make: response-only fields; int64 range and exactness; integers beyond 2^53;
 *  timestamps as the API reads them; Money's signs; an enum value outside the known ones (of an enum whose full list
 *  is not public) is a warning, or an error when it is a slip of a known one. Plain leaves of other
 *  types are skipped without building their pointer: a large configuration would make one per leaf. */
function walkSpec(field: Field, v: unknown, pointer: string, src: LoadedDoc, out: Issue[]): void {
  if (v === null || v === undefined) return;
  const fail = (message: string) => out.push(issueAt(src, pointer, `${dotted(pointer)}: ${message}`));
  if (field.readOnly) {
    fail('is a response-only field set by the server; remove it from spec');
    return;
  }
  if (field.type === 'message' && isObject(v)) {
    const money = field.money ? moneySignProblem(v) : undefined;
    if (money) out.push(issueAt(src, `${pointer}/nanos`, `${dotted(`${pointer}/nanos`)}: ${money}`));
    for (const k in v) {
      const f = field.props?.[k];
      if (f && worthWalking(f, v[k])) walkSpec(f, v[k], `${pointer}/${escapePointer(k)}`, src, out);
    }
  } else if (field.type === 'array' && Array.isArray(v)) {
    v.forEach((x, i) => worthWalking(field.items!, x) && walkSpec(field.items!, x, `${pointer}/${i}`, src, out));
  } else if (field.type === 'int64') {
    const problem = int64Problem(v, !!src.wideIntegers?.includes(pointer));
    if (problem) fail(problem);
  } else if (field.type === 'integer' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    fail(`${String(v)} is not an exact integer: beyond 2^53 a number cannot be read exactly`);
  } else if (field.type === 'timestamp' && typeof v === 'string' && canonicalTimestamp(v) === undefined) {
    fail(`${JSON.stringify(v)} is not a valid date-time (RFC 3339 as the API reads it, e.g. 2026-01-31T20:00:00Z: T between date and time, at most 9 fractional digits, Z or ±hh:mm)`);
  } else if (field.type === 'map' || field.type === 'any') {
    // The schema types no value inside: a `.nan` or `.inf` there would go out as JSON null.
    for (const [p, n] of nonFinite(v, pointer)) out.push(issueAt(src, p, `${dotted(p)}: ${n} cannot be sent: JSON has no infinity or NaN`));
  } else if (field.type === 'enum' && field.known && !field.allowed && typeof v === 'string' && !field.known.includes(v) && /^[A-Z][A-Z0-9_]*$/.test(v)) {
    // The platform's full list is not public (a closed enum's schema refuses other values itself): another value may
    // be real, but one a slip away from a known value is a typo the platform would refuse.
    const slip = slipOf(v, field.known);
    if (slip) fail(`${v} is not a known value: did you mean ${slip}?`);
    else out.push(issueAt(src, pointer, `${dotted(pointer)}: ${v} is not a known value (${field.known.join(', ')}); sending it anyway`, 'warning'));
  }
}

/** Whether walkSpec has something to check in `x`: a leaf is looked at first, so that only a leaf with a problem
 *  costs its pointer. */
function worthWalking(f: Field, x: unknown): boolean {
  if (x === null || x === undefined) return false;
  switch (f.type) {
    case 'message': case 'array': return true;
    case 'int64': return f.readOnly || canonicalInt64(x) === undefined;
    case 'integer': return f.readOnly || (Number.isInteger(x) && !Number.isSafeInteger(x));
    case 'timestamp': return f.readOnly || (typeof x === 'string' && canonicalTimestamp(x) === undefined);
    case 'map': case 'any': return f.readOnly || typeof x === 'object' || (typeof x === 'number' && !Number.isFinite(x));
    case 'enum': return f.readOnly || !!f.known;
    default: return f.readOnly;
  }
}

/** The numbers JSON cannot carry (NaN, infinities) inside a free-form value, by pointer. */
function nonFinite(v: unknown, pointer: string): Array<[string, number]> {
  if (typeof v === 'number') return Number.isFinite(v) ? [] : [[pointer, v]];
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => nonFinite(x, `${pointer}/${escapePointer(k)}`));
}

const NO_POINTERS: Set<string> = new Set();

/** The pointers of integers written beyond 2^53 where no int64 field takes them: held as their text they would go
 *  out as strings, as numbers without their last digits. One in an unknown field is reported as an unknown field. */
function wideOutsideInt64(src: LoadedDoc, k: KindDef): Set<string> {
  if (!src.wideIntegers?.length) return NO_POINTERS;
  const fields = Object.keys(allSchemas().get(k.schema)?.properties ?? {});
  return new Set((src.wideIntegers ?? []).filter((p) => {
    if (!p.startsWith('/spec/')) return fields.includes(unescapePointer(p.split('/')[1] ?? ''));
    const f = fieldAtPointer(resourceModel(k.schema), p.slice('/spec'.length));
    return f !== undefined && f.type !== 'int64';
  }));
}

const hasNull = (v: unknown): boolean => v === null || (typeof v === 'object' && Object.values(v as object).some(hasNull));

function withoutNulls(v: unknown): unknown {
  if (!hasNull(v)) return v;
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

function identityOf(k: KindDef, d: Document): string | undefined {
  switch (k.identity.by) {
    case 'key': return d.spec[k.identity.field] as string | undefined;
    case 'natural': return k.identity.fields.map((f) => String(d.spec[f] ?? '')).join(' ');
    case 'id': return d.id;
  }
}

function checkOne(src: LoadedDoc, registry: Registry, issues: Issue[]): Document | undefined {
  const v = src.value;
  if (!isObject(v)) {
    issues.push(issueAt(src, '', 'a document must be a mapping with kind, name and spec'));
    return undefined;
  }
  const k = typeof v.kind === 'string' ? registry.get(v.kind) : undefined;
  if (!k) {
    const what = v.kind === undefined ? 'missing kind' : `unknown kind ${JSON.stringify(v.kind)}`;
    issues.push(issueAt(src, v.kind === undefined ? '' : '/kind', `${what} (one of: ${registry.names().join(', ')})`));
    return undefined;
  }
  const validate = validator(k.schema);
  const model = resourceModel(k.schema);
  const before = issues.length;
  const wide = wideOutsideInt64(src, k);
  for (const p of wide) issues.push(issueAt(src, p, `${dotted(p) || 'document'}: ${String(atPointer(v, p))} is an integer beyond 2^53, which only an int64 field holds exactly (quote it if it is text)`));
  // `null` clears a field, whatever its type: the schema checks what is left. Where an integer beyond 2^53 was
  // refused above, the schema would only add a second message (its text is no integer).
  if (!validate(withoutNulls(v))) {
    for (const e of validate.errors ?? []) {
      if (wide.has(e.instancePath)) continue;
      const { pointer, message } = describe(e);
      issues.push(issueAt(src, pointer, message));
    }
  }
  if (isObject(v.spec)) {
    walkSpec(model, v.spec, '/spec', src, issues);
    for (const check of k.checks ?? []) {
      for (const [path, message] of check(v.spec)) issues.push(issueAt(src, `/spec/${path.split('.').join('/')}`, message));
    }
  }
  // A kind tapedeck cannot create (from fields, or by copying another) is managed only as an existing resource.
  const copies = k.createdFrom && v[k.createdFrom] !== undefined && k.duplicate;
  if (k.identity.by === 'id' && v.id === undefined && !k.create && !copies) {
    const how = k.duplicate && k.createdFrom ? ` or ${k.createdFrom} (to create one by duplication)` : ` (tapedeck cannot create a ${k.kind})`;
    issues.push(issueAt(src, '', `${k.kind} needs id (an existing ${k.kind.toLowerCase()})${how}`));
  }
  if (k.createdFrom && v.id !== undefined && v[k.createdFrom] !== undefined) {
    issues.push(issueAt(src, `/${k.createdFrom}`, `${k.createdFrom} is ignored: the document already names its ${k.kind.toLowerCase()} by id`, 'warning'));
  }
  if (typeof v.moved_from === 'string' && (!v.moved_from.startsWith(`${k.kind}/`) || v.moved_from === `${k.kind}/${String(v.name)}`)) {
    issues.push(issueAt(src, '/moved_from', `moved_from must name another ${k.kind} (${k.kind}/old-name), not ${v.moved_from}`));
  }
  // A sensitive value cannot name a resource or go into a request path: it would show in paths, ids, saved plans
  // and the state.
  for (const pointer of src.sensitive ?? []) {
    const field = pointer.split('/').slice(1, pointer.startsWith('/spec/') ? 3 : 2).map(unescapePointer).join('.');
    if (namingFields(k).has(field)) {
      issues.push(issueAt(src, pointer, `${dotted(pointer)} names the resource, so it cannot come from \${env.*} (a value from the environment is sensitive and would show in request paths, ids, saved plans and the state): use \${var.NAME}`));
    }
  }
  if (issues.slice(before).some((i) => i.severity === 'error')) return undefined;
  return {
    kind: k.kind,
    name: v.name as string,
    // Joined, not concatenated: a long concatenation is a rope that V8 flattens into a copy on first compare,
    // keeping both.
    address: [k.kind, v.name as string].join('/'),
    id: v.id as string | undefined,
    duplicate_from: k.createdFrom ? (v[k.createdFrom] as string | undefined) : undefined,
    ...(typeof v.moved_from === 'string' ? { moved_from: v.moved_from } : {}),
    ...(v.allow_duplicate === true ? { allow_duplicate: true } : {}),
    ...(src.sensitive?.length ? { sensitive: specPaths(src.sensitive, model) } : {}),
    spec: emptyMessagesAsNull(model, v.spec as JsonObject),
    source: src,
  };
}

/**
 * Spec field paths of JSON pointers under /spec (`offer_prices.0.price.units`): an index of an ordered array is
 * kept, so only that leaf is masked; a set (kept sorted, so the document's index means nothing once normalised)
 * and what is inside a free-form value are one value, cut there.
 */
function specPaths(pointers: string[], model: Field): string[] {
  const paths = pointers.filter((p) => p.startsWith('/spec/')).map((p) => {
    const parts = p.split('/').slice(2).map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'));
    let field: Field | undefined = model;
    let end = 0;
    for (; end < parts.length && field; end++) {
      if (field.type === 'array' && (field.set || !/^\d+$/.test(parts[end]))) break;
      field = field.type === 'message' ? field.props?.[parts[end]] : field.type === 'array' ? field.items : undefined;
    }
    return parts.slice(0, end).join('.');
  });
  return [...new Set(paths)];
}

const where = (d: Document) => `${d.source.file}:${nearestPos(d.source, '/name')?.line ?? 1}`;

/** Rules across documents: one document per address and per live resource, the kinds' uniqueness rules. */
function crossCheck(docs: Document[], registry: Registry, issues: Issue[]): void {
  const seen = new Map<string, Document>();
  // kind -> identity -> its first document, keyed by the identity as the document has it (an id, a key): a key
  // string made for each document was garbage that outlived the check.
  const identities = new Map<string, Map<string, Document>>();
  const unique = new Map<string, Document>();
  const movedFrom = new Map<string, Document>();
  // Only renamed documents ask which addresses are declared: most configurations have none.
  const declared = docs.some((d) => d.moved_from) ? new Set(docs.map((d) => d.address)) : new Set<string>();
  for (const d of docs) {
    if (!d.moved_from) continue;
    const other = movedFrom.get(d.moved_from);
    if (declared.has(d.moved_from)) issues.push(issueAt(d.source, '/moved_from', `${d.moved_from} is still declared: a document moved from it must be its only one`));
    else if (other) issues.push(issueAt(d.source, '/moved_from', `${other.address} (${where(other)}) moved from ${d.moved_from} already`));
    movedFrom.set(d.moved_from, d);
  }
  for (const d of docs) {
    const k = registry.get(d.kind)!;
    const prev = seen.get(d.address);
    if (prev) {
      issues.push(issueAt(d.source, '/name', `duplicate ${d.address}: also defined at ${where(prev)}`));
      continue;
    }
    seen.set(d.address, d);
    const ident = identityOf(k, d);
    if (ident !== undefined) {
      if (!identities.has(d.kind)) identities.set(d.kind, new Map());
      const ofKind = identities.get(d.kind)!;
      const twin = ofKind.get(String(ident));
      if (twin) issues.push(issueAt(d.source, '/name', `${d.address} manages the same ${d.kind} as ${twin.address} (${where(twin)})`));
      else ofKind.set(String(ident), d);
    }
    for (const u of k.uniqueWhen ?? []) {
      if (d.spec[u.when] !== true) continue;
      const key = `${d.kind} ${u.when} ${u.fields.map((f) => String(d.spec[f])).join(' ')}`;
      const other = unique.get(key);
      if (other) issues.push(issueAt(d.source, `/spec/${u.when}`, `${u.message} (${u.fields.map((f) => `${f} ${String(d.spec[f])}`).join(', ')}): ${other.address} at ${where(other)} is already the default`));
      else unique.set(key, d);
    }
  }
}

/** The value at a JSON pointer. */
function atPointer(v: unknown, pointer: string): unknown {
  for (const part of pointer.split('/').slice(1)) v = (v as Record<string, unknown> | undefined)?.[unescapePointer(part)];
  return v;
}

export function validateDocuments(sources: LoadedDoc[], registry: Registry): { docs: Document[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const docs = sources.map((s) => checkOne(s, registry, issues)).filter((d): d is Document => !!d);
  crossCheck(docs, registry, issues);
  return { docs, issues };
}
