// Documents checked against their kind's schema and the cross-document rules; every problem reported at once.
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import type { Field } from '../schema/model.js';
import { resourceModel } from '../schema/model.js';
import { isObject, type JsonObject } from '../schema/values.js';
import type { Document, Issue, SourceDoc } from '../types.js';
import { describe, dotted, validator } from './schema.js';

const issueAt = (src: SourceDoc, pointer: string, message: string, severity: Issue['severity'] = 'error'): Issue => ({
  file: src.file, pos: nearestPos(src, pointer), pointer, message, severity,
});

/** The position of a pointer, or of its nearest ancestor that has one. */
export function nearestPos(src: SourceDoc, pointer: string) {
  let p = pointer;
  for (;;) {
    src.positions ??= src.locate?.() ?? new Map();
    const pos = src.positions.get(p);
    if (pos || p === '') return pos;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

/** Response-only fields are rejected; an enum value outside the published ones is a warning. Plain leaves (most
 *  fields) are skipped without building their pointer: 10,000 documents would make hundreds of thousands. */
function walkSpec(field: Field, v: unknown, pointer: string, src: SourceDoc, out: Issue[]): void {
  if (v === null || v === undefined) return;
  if (field.readOnly) {
    out.push(issueAt(src, pointer, `${dotted(pointer)}: is a response-only field set by the server; remove it from spec`));
    return;
  }
  if (field.type === 'message' && isObject(v)) {
    for (const k in v) {
      const f = field.props?.[k];
      if (f && worthWalking(f)) walkSpec(f, v[k], `${pointer}/${k}`, src, out);
    }
  } else if (field.type === 'array' && Array.isArray(v)) {
    if (worthWalking(field.items!)) v.forEach((x, i) => walkSpec(field.items!, x, `${pointer}/${i}`, src, out));
  } else if (field.type === 'enum' && field.known && typeof v === 'string' && !field.known.includes(v) && /^[A-Z][A-Z0-9_]*$/.test(v)) {
    out.push(issueAt(src, pointer, `${dotted(pointer)}: ${v} is not a known value (${field.known.join(', ')}); sending it anyway`, 'warning'));
  }
}

const worthWalking = (f: Field) => f.readOnly || f.type === 'message' || f.type === 'array' || (f.type === 'enum' && !!f.known);

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

function checkOne(src: SourceDoc, registry: Registry, issues: Issue[]): Document | undefined {
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
  const before = issues.length;
  // `null` clears a field, whatever its type: the schema checks what is left.
  if (!validate(withoutNulls(v))) {
    for (const e of validate.errors ?? []) {
      const { pointer, message } = describe(e);
      issues.push(issueAt(src, pointer, message));
    }
  }
  if (isObject(v.spec)) walkSpec(resourceModel(k.schema), v.spec, '/spec', src, issues);
  for (const check of k.checks ?? []) {
    for (const [path, message] of check(v.spec as JsonObject)) issues.push(issueAt(src, `/spec/${path.split('.').join('/')}`, message));
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
  if (issues.slice(before).some((i) => i.severity === 'error')) return undefined;
  return {
    kind: k.kind,
    name: v.name as string,
    address: `${k.kind}/${v.name as string}`,
    id: v.id as string | undefined,
    duplicate_from: k.createdFrom ? (v[k.createdFrom] as string | undefined) : undefined,
    ...(typeof v.moved_from === 'string' ? { moved_from: v.moved_from } : {}),
    ...(src.sensitive?.length ? { sensitive: specPaths(src.sensitive) } : {}),
    spec: v.spec as JsonObject,
    source: src,
  };
}

/** Spec field paths of JSON pointers under /spec, cut at the first array index (an array is one value). */
function specPaths(pointers: string[]): string[] {
  const paths = pointers.filter((p) => p.startsWith('/spec/')).map((p) => {
    const parts = p.split('/').slice(2).map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'));
    const end = parts.findIndex((x) => /^\d+$/.test(x));
    return parts.slice(0, end < 0 ? undefined : end).join('.');
  });
  return [...new Set(paths)];
}

const where = (d: Document) => `${d.source.file}:${nearestPos(d.source, '/name')?.line ?? 1}`;

/** Rules across documents: one document per address and per live resource, the kinds' uniqueness rules. */
function crossCheck(docs: Document[], registry: Registry, issues: Issue[]): void {
  const seen = new Map<string, Document>();
  const identities = new Map<string, Document>();
  const unique = new Map<string, Document>();
  const movedFrom = new Map<string, Document>();
  const declared = new Set(docs.map((d) => d.address));
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
    const twin = ident !== undefined ? identities.get(`${d.kind} ${ident}`) : undefined;
    if (twin) issues.push(issueAt(d.source, '/name', `${d.address} manages the same ${d.kind} as ${twin.address} (${where(twin)})`));
    else if (ident !== undefined) identities.set(`${d.kind} ${ident}`, d);
    for (const u of k.uniqueWhen ?? []) {
      if (d.spec[u.when] !== true) continue;
      const key = `${d.kind} ${u.when} ${u.fields.map((f) => String(d.spec[f])).join(' ')}`;
      const other = unique.get(key);
      if (other) issues.push(issueAt(d.source, `/spec/${u.when}`, `${u.message} (${u.fields.map((f) => `${f} ${String(d.spec[f])}`).join(', ')}): ${other.address} at ${where(other)} is already the default`));
      else unique.set(key, d);
    }
  }
}

export function validateDocuments(sources: SourceDoc[], registry: Registry): { docs: Document[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const docs = sources.map((s) => checkOne(s, registry, issues)).filter((d): d is Document => !!d);
  crossCheck(docs, registry, issues);
  return { docs, issues };
}
