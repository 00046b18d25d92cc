// Endpoint templates filled in: path parameters percent-encoded (a resource key segment by segment, so its `/`
// stays a separator and nothing else can change the path), query parameters from the spec.
import type { Endpoint, KindDef } from './types.js';
import type { JsonObject } from '../schema/values.js';

/** One path segment: percent-encoded, and `.`/`..` spelt with %2E so no URL parser takes them as a way up. */
const segment = (s: string) => (s === '.' || s === '..' ? s.replace(/\./g, '%2E') : encodeURIComponent(s));
/** A reference that is not known yet is written as its text, for apply to fill in; the rest is encoded. */
const encode = (s: string) => s.split(/(\$\{[^}]+\})/).map((part, i) => (i % 2 ? part : segment(part))).join('');
/** A resource key: each `/`-separated segment encoded, references kept whole even though they hold a `/`. */
const encodeKey = (s: string) => s.split(/(\$\{[^}]+\})/).map((part, i) => (i % 2 ? part : part.split('/').map(segment).join('/'))).join('');

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

export function withQuery(path: string, query: Record<string, string> | undefined, spec: JsonObject): string {
  if (!query) return path;
  const q = new URLSearchParams();
  for (const [name, from] of Object.entries(query)) {
    const v = spec[from.replace(/^spec\./, '')];
    if (v !== undefined && v !== null && v !== '') q.set(name, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** The read path of one resource. */
export function readPath(k: KindDef, v: PathValues): string {
  return withQuery(fillPath(k.read.path, v), k.read.query, v.spec);
}

export const endpointPath = (ep: Endpoint, v: PathValues) => fillPath(ep.path, v);
