// Documents checked against their kind's schema and the cross-document rules; every problem reported at once.
import type { Registry } from '../kinds/registry.js';
import { namingFields } from '../kinds/naming.js';
import type { KindDef } from '../kinds/types.js';
import type { LoadedDoc } from '../load/load.js';
import { resourceModel, unescapePointer, type Field } from '../schema/model.js';
import { emptyMessagesAsNull, isObject, type JsonObject } from '../schema/values.js';
import { SENSITIVE, type Document, type Issue } from '../types.js';
import type { ErrorObject } from 'ajv';
import { describe, dotted, validator } from './schema.js';
import { fromEnvironment, issueAt, nearestPos } from './locate.js';
import { walkSpec, wideOutsideInt64, withoutNulls } from './spec-walk.js';

function identityOf(k: KindDef, d: Document): string | undefined {
  switch (k.identity.by) {
    case 'key':
      return d.spec[k.identity.field] as string | undefined;
    case 'natural':
      return k.identity.fields.map((f) => String(d.spec[f] ?? '')).join(' ');
    case 'id':
      return d.id;
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
  const model = resourceModel(k.schema);
  const before = issues.length;
  schemaIssues(src, v, k, issues);
  if (isObject(v.spec)) {
    walkSpec(model, v.spec, '/spec', src, issues);
    const spec = k.checks ? asChecked(v.spec, src) : v.spec;
    for (const check of k.checks ?? []) {
      for (const [path, message] of check(spec))
        issues.push(issueAt(src, `/spec/${path.split('.').join('/')}`, message));
    }
  }
  identityIssues(src, v, k, issues);
  sensitiveNameIssues(src, k, issues);
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

/** The kind's schema: integers beyond 2^53 outside an int64 field, then the schema's own errors. */
function schemaIssues(src: LoadedDoc, v: JsonObject, k: KindDef, issues: Issue[]): void {
  const validate = validator(k.schema);
  const wide = wideOutsideInt64(src, k);
  for (const p of wide)
    issues.push(
      issueAt(
        src,
        p,
        `${dotted(p) || 'document'}: ${String(atPointer(v, p))} is an integer beyond 2^53, which only an int64 field holds exactly (quote it if it is text)`,
      ),
    );
  // `null` clears a field, whatever its type: the schema checks what is left. Where an integer beyond 2^53 was
  // refused above, the schema would only add a second message (its text is no integer).
  if (validate(withoutNulls(v))) return;
  for (const e of validate.errors ?? []) {
    if (wide.has(e.instancePath)) continue;
    const { pointer, message } = emptied(e, v) ?? describe(e, fromEnvironment(src, e.instancePath));
    issues.push(issueAt(src, pointer, message));
  }
}

/** What names the resource: an id where tapedeck cannot create one, what it is copied from, moved_from. */
function identityIssues(src: LoadedDoc, v: JsonObject, k: KindDef, issues: Issue[]): void {
  // A kind tapedeck cannot create (from fields, or by copying another) is managed only as an existing resource.
  const copies = k.createdFrom && v[k.createdFrom] !== undefined && k.duplicate;
  if (k.identity.by === 'id' && v.id === undefined && !k.create && !copies) {
    const how =
      k.duplicate && k.createdFrom
        ? ` or ${k.createdFrom} (to create one by duplication)`
        : ` (tapedeck cannot create a ${k.kind})`;
    issues.push(issueAt(src, '', `${k.kind} needs id (an existing ${k.kind.toLowerCase()})${how}`));
  }
  if (k.createdFrom && v.id !== undefined && v[k.createdFrom] !== undefined) {
    issues.push(
      issueAt(
        src,
        `/${k.createdFrom}`,
        `${k.createdFrom} is ignored: the document already names its ${k.kind.toLowerCase()} by id`,
        'warning',
      ),
    );
  }
  if (
    typeof v.moved_from === 'string' &&
    (!v.moved_from.startsWith(`${k.kind}/`) || v.moved_from === `${k.kind}/${String(v.name)}`)
  ) {
    issues.push(
      issueAt(src, '/moved_from', `moved_from must name another ${k.kind} (${k.kind}/old-name), not ${v.moved_from}`),
    );
  }
}

/** A sensitive value cannot name a resource or go into a request path: it would show in paths, ids, saved plans
 *  and the state. */
function sensitiveNameIssues(src: LoadedDoc, k: KindDef, issues: Issue[]): void {
  for (const pointer of src.sensitive ?? []) {
    const field = pointer
      .split('/')
      .slice(1, pointer.startsWith('/spec/') ? 3 : 2)
      .map(unescapePointer)
      .join('.');
    if (namingFields(k).has(field)) {
      issues.push(
        issueAt(
          src,
          pointer,
          `${dotted(pointer)} names the resource, so it cannot come from \${env.*} (a value from the environment is sensitive and would show in request paths, ids, saved plans and the state): use \${var.NAME}`,
        ),
      );
    }
  }
}

/**
 * Spec field paths of JSON pointers under /spec (`offer_prices.0.price.units`): an index of an ordered array is
 * kept, so only that leaf is masked; a set (kept sorted, so the document's index means nothing once normalised)
 * and what is inside a free-form value are one value, cut there.
 */
function specPaths(pointers: string[], model: Field): string[] {
  const paths = pointers
    .filter((p) => p.startsWith('/spec/'))
    .map((p) => {
      const parts = p
        .split('/')
        .slice(2)
        .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'));
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
  movedFromIssues(docs, issues);
  const seen = new Map<string, Document>();
  // kind -> identity -> its first document, keyed by the identity as the document has it (an id, a key): a key
  // string made for each document was garbage that outlived the check.
  const identities = new Map<string, Map<string, Document>>();
  const unique = new Map<string, Document>();
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
      if (twin)
        issues.push(
          issueAt(d.source, '/name', `${d.address} manages the same ${d.kind} as ${twin.address} (${where(twin)})`),
        );
      else ofKind.set(String(ident), d);
    }
    uniqueIssues(d, k, unique, issues);
  }
}

/** A document moved from an address still declared, or from one another document moved from. */
function movedFromIssues(docs: Document[], issues: Issue[]): void {
  const movedFrom = new Map<string, Document>();
  // Only renamed documents ask which addresses are declared: most configurations have none.
  const declared = docs.some((d) => d.moved_from) ? new Set(docs.map((d) => d.address)) : new Set<string>();
  for (const d of docs) {
    if (!d.moved_from) continue;
    const other = movedFrom.get(d.moved_from);
    if (declared.has(d.moved_from))
      issues.push(
        issueAt(
          d.source,
          '/moved_from',
          `${d.moved_from} is still declared: a document moved from it must be its only one`,
        ),
      );
    else if (other)
      issues.push(
        issueAt(d.source, '/moved_from', `${other.address} (${where(other)}) moved from ${d.moved_from} already`),
      );
    movedFrom.set(d.moved_from, d);
  }
}

/** The kind's uniqueness rules (one default per project and type): `unique` holds the first document of each. */
function uniqueIssues(d: Document, k: KindDef, unique: Map<string, Document>, issues: Issue[]): void {
  for (const u of k.uniqueWhen ?? []) {
    if (d.spec[u.when] !== true) continue;
    const key = `${d.kind} ${u.when} ${u.fields.map((f) => String(d.spec[f])).join(' ')}`;
    const other = unique.get(key);
    if (other)
      issues.push(
        issueAt(
          d.source,
          `/spec/${u.when}`,
          `${u.message} (${u.fields.map((f) => `${f} ${String(d.spec[f])}`).join(', ')}): ${other.address} at ${where(other)} is already the default`,
        ),
      );
    else unique.set(key, d);
  }
}

/** The spec as a kind's checks read it: a value from the environment reads "(sensitive)", as a guardrail rule reads
 *  it, so that no check's message can quote it (the platform checks the value itself when it is sent). */
function asChecked(spec: JsonObject, src: LoadedDoc): JsonObject {
  const hidden = (src.sensitive ?? []).filter((p) => p.startsWith('/spec/'));
  if (!hidden.length) return spec;
  const copy = structuredClone(spec);
  for (const pointer of hidden) {
    const cut = pointer.lastIndexOf('/');
    const parent = atPointer(copy, pointer.slice('/spec'.length, cut));
    if (isObject(parent) || Array.isArray(parent))
      (parent as Record<string, unknown>)[unescapePointer(pointer.slice(cut + 1))] = SENSITIVE;
  }
  return copy;
}

/** The value at a JSON pointer. */
function atPointer(v: unknown, pointer: string): unknown {
  for (const part of pointer.split('/').slice(1))
    v = (v as Record<string, unknown> | undefined)?.[unescapePointer(part)];
  return v;
}

export function validateDocuments(sources: LoadedDoc[], registry: Registry): { docs: Document[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const docs = sources.map((s) => checkOne(s, registry, issues)).filter((d): d is Document => !!d);
  crossCheck(docs, registry, issues);
  return { docs, issues };
}

/** A required field written with nothing after its colon (`spec:`) is null, which clears, and so reads as missing:
 *  said as what it is, at the field's own line. */
function emptied(e: ErrorObject, doc: unknown): { pointer: string; message: string } | undefined {
  if (e.keyword !== 'required') return undefined;
  const prop = (e.params as { missingProperty: string }).missingProperty;
  const pointer = `${e.instancePath}/${prop}`;
  if (atPointer(doc, pointer) !== null) return undefined;
  const owner = e.instancePath ? dotted(e.instancePath) : 'the document';
  return {
    pointer,
    message: `${dotted(pointer)} is empty (an empty \`${prop}:\` is null), and ${owner} needs it: write its fields below it, indented`,
  };
}
