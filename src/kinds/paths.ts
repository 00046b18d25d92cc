// Endpoint templates filled in: path parameters percent-encoded (a resource key segment by segment, so its `/`
// stays a separator and nothing else can change the path), query parameters from the spec.
import type { Endpoint, KindDef } from './types.js';
import type { JsonObject } from '../schema/values.js';

/** One path segment: percent-encoded, and `.`/`..` spelt with %2E so no URL parser takes them as a way up. */
export const segment = (s: string) => (s === '.' || s === '..' ? s.replace(/\./g, '%2E') : encodeURIComponent(s));
/**
 * A reference whose id is not known yet: refs.ts's `${Kind/name.id}`, not escaped, with a name a document can
 * have (nothing in it can bend a path). Only that stays as text in a path, for apply to fill in (encoded, by
 * fillPathReferences); anything else, `${` included, is encoded like any value.
 */
const PATH_REF = /((?<!\$)\$\{[A-Za-z]+\/[A-Za-z0-9][\w-]*\.id\})/;
const encode = (s: string) =>
  s
    .split(PATH_REF)
    .map((part, i) => (i % 2 ? part : segment(part)))
    .join('');
/** A resource key: each `/`-separated segment encoded, references kept whole even though they hold a `/`. */
const encodeKey = (s: string) =>
  s
    .split(PATH_REF)
    .map((part, i) => (i % 2 ? part : part.split('/').map(segment).join('/')))
    .join('');

export interface PathValues {
  id?: string;
  key?: string;
  source?: string;
  spec: JsonObject;
}

export function fillPath(template: string, v: PathValues): string {
  return template.replace(/\{([\w.]+)\}/g, (_, name: string) => {
    if (name === 'id') return encode(v.id ?? '');
    if (name === 'source') return encode(v.source ?? '');
    if (name === 'key') return encodeKey(v.key ?? '');
    if (name.startsWith('spec.')) return encode(String(v.spec[name.slice(5)] ?? ''));
    return '';
  });
}

/** The field of the spec that a `spec.x` in a kind's endpoint (query, extra body fields) names. */
export const specField = (from: string) => from.replace(/^spec\./, '');

export function withQuery(path: string, query: Record<string, string> | undefined, spec: JsonObject): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [name, from] of Object.entries(query)) {
    const v = spec[specField(from)];
    if (v !== undefined && v !== null && v !== '') q.set(name, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The spec fields a kind's read path is built from (a content type's project and base type): where a resource is. */
export function readPathFields(k: KindDef): string[] {
  const inPath = [...k.read.path.matchAll(/\{spec\.(\w+)\}/g)].map((m) => m[1]);
  return [...new Set([...inPath, ...Object.values(k.read.query ?? {}).map(specField)])];
}

/** The read path of one resource. */
export function readPath(k: KindDef, v: PathValues): string {
  return withQuery(fillPath(k.read.path, v), k.read.query, v.spec);
}

export const endpointPath = (ep: Endpoint, v: PathValues) => fillPath(ep.path, v);
