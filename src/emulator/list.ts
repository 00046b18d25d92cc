// The list engine shared by every list endpoint: project scope, `filter` (the platform's language: filter-*.ts),
// `order_by`, `search` ranked by relevance, `pinned` first, and opaque page tokens.
import { createHash } from 'node:crypto';
import type { Field } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import { bad } from './fault.js';
import { FilterError } from './filter-lex.js';
import { compileFilter, instant, type Predicate } from './filter-eval.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export interface ListRules {
  /** fields order_by may name (each with asc or desc); empty: order_by is rejected */
  orderBy: string[];
  /** fields `search` looks in, the first ranked highest */
  search: string[];
  /** fields `filter` may name that the stored resources never carry: they read as unset */
  unsetFilterFields?: string[];
}

/** A bad filter is the caller's error: 400 with the message, which names the position. */
function filterOf(text: string, model: Field, rules: ListRules): Predicate {
  try {
    return compileFilter(text, model, rules.unsetFilterFields);
  } catch (e) {
    throw e instanceof FilterError ? bad(e.message) : e;
  }
}

function compare(a: unknown, b: unknown, field: string, type: string | undefined): number {
  if (type === 'timestamp') {
    // As instants: `...00.5Z` is after `...00Z`, which their spellings do not say. Unset sorts first.
    const [x, y] = [instant(a), instant(b)];
    if (x === undefined || y === undefined) return Number(y === undefined) - Number(x === undefined);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = String(a ?? '');
  const y = String(b ?? '');
  if (field === 'title' || field === 'name')
    return x.localeCompare(y, 'en', { sensitivity: 'base' }) || (x < y ? -1 : x > y ? 1 : 0);
  return x < y ? -1 : x > y ? 1 : 0;
}

function pageToken(offset: number, signature: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: signature })).toString('base64url');
}

function readToken(token: string, signature: string): number {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Number.isInteger(t.o) && t.o >= 0 && t.s === signature) return t.o;
  } catch {
    /* reported below */
  }
  throw bad('page_token is not valid for this query');
}

/** The matching resources in the order the query asks: `order_by`, unless `search` (by relevance: the first search
 *  field that holds it) or `pinned` (those ids first) is used. */
function orderedBy(
  all: JsonObject[],
  matches: (r: JsonObject) => boolean,
  query: URLSearchParams,
  model: Field,
  rules: ListRules,
): JsonObject[] {
  const search = (query.get('search') ?? '').trim().toLowerCase();
  const pinned = query
    .getAll('pinned')
    .flatMap((p) => p.split(','))
    .filter(Boolean);
  const orderBy = (query.get('order_by') ?? '').trim();
  let ordered = all.filter(matches);
  if (orderBy) {
    const m = /^([a-z_]+)\s+(asc|desc)$/i.exec(orderBy);
    if (!m || !rules.orderBy.includes(m[1])) {
      throw bad(
        `order_by must be one of: ${rules.orderBy.flatMap((f) => [`${f} asc`, `${f} desc`]).join(', ') || '(none)'}`,
      );
    }
    if (!search && !pinned.length) {
      const sign = m[2].toLowerCase() === 'desc' ? -1 : 1;
      const type = model.props?.[m[1]]?.type;
      ordered = [...ordered].sort((a, b) => sign * compare(a[m[1]], b[m[1]], m[1], type));
    }
  }
  if (search) {
    const rank = (r: JsonObject) =>
      rules.search.findIndex((f) =>
        String(r[f] ?? '')
          .toLowerCase()
          .includes(search),
      );
    ordered = ordered
      .map((r) => [rank(r), r] as const)
      .filter(([k]) => k >= 0)
      .sort((a, b) => a[0] - b[0])
      .map(([, r]) => r);
  }
  if (!pinned.length) return ordered;
  const byId = new Map(all.filter(matches).map((r) => [String(r.id), r]));
  const first = [...new Set(pinned)].map((id) => byId.get(id)).filter((r): r is JsonObject => !!r);
  const firstIds = new Set(first.map((r) => r.id));
  return [...first, ...ordered.filter((r) => !firstIds.has(r.id))];
}

/** One page of `all` (in creation order) as the query asks, with the next page's token. */
export function listPage(
  all: JsonObject[],
  query: URLSearchParams,
  model: Field,
  rules: ListRules,
  maxPageSize = MAX_PAGE_SIZE,
) {
  const sizeText = query.get('page_size') ?? '0';
  if (!/^\d+$/.test(sizeText)) throw bad('page_size must be a non-negative integer');
  const pageSize = Math.min(Number(sizeText) || DEFAULT_PAGE_SIZE, maxPageSize);
  const filter = filterOf(query.get('filter') ?? '', model, rules);
  const project = query.get('project_id');
  const matches = (r: JsonObject) => (!project || r.project_id === project) && filter(r);

  const ordered = orderedBy(all, matches, query, model, rules);
  const signature = createHash('sha256')
    .update(JSON.stringify([...query.entries()].filter(([k]) => k !== 'page_token' && k !== 'page_size').sort()))
    .digest('base64url')
    .slice(0, 16);
  const token = query.get('page_token');
  const offset = token ? readToken(token, signature) : 0;
  const page = ordered.slice(offset, offset + pageSize);
  const next = offset + pageSize < ordered.length ? pageToken(offset + pageSize, signature) : '';
  return { items: page, next_page_token: next };
}
