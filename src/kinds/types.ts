// What tapedeck knows about one kind, as data: identity, endpoints and the shapes of its request bodies.
// The engine reads these; it never asks which kind it is handling.

/** Where an endpoint comes from: the API spec, the platform's public docs, or our assumption. */
export type Source = 'spec' | 'docs' | 'assumed';

export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** `{id}` is the resource id (one encoded segment), `{key}` a resource key (encoded segment by segment),
   *  `{spec.x}` a value of the document's spec, `{source}` the event to duplicate. */
  path: string;
  source: Source;
}

export interface ReadEndpoint extends Endpoint {
  /** response key holding the resource; absent: the response body is the resource itself */
  wrapper?: string;
  /** query parameters filled from the spec, e.g. { base_type: 'spec.base_type' } */
  query?: Record<string, string>;
  /** what a 404 means: an error, or a resource that was never set (policy) */
  notFound: 'error' | 'empty';
}

export interface ListEndpoint extends Endpoint {
  itemsKey: string;
  /** spec fields passed as query parameters to narrow the list (project_id) */
  scope: string[];
}

export interface CreateEndpoint extends Endpoint {
  /** fields: the resource's fields at the top level (operation 7); duplicate: {<idField>, <bodyKey>, update_mask} */
  style: 'fields' | 'duplicate';
  /** response key holding the created resource */
  wrapper: string;
  idField?: string;
  bodyKey?: string;
  /** in a duplicate's string fields this stands for the source's value of the same field (`%@`) */
  placeholder?: string;
}

export interface UpdateEndpoint extends Endpoint {
  /** patch: partial body + update_mask; replace: the whole resource (live fields carried for unmanaged ones) */
  style: 'patch' | 'replace';
  /** body field holding the id (offer_id); absent: none */
  idField?: string;
  /** body field holding the resource or its changed part (offer); absent: fields at top level */
  bodyKey?: string;
  /** the id is also written inside the resource (ContentType: type.id) */
  idInResource?: boolean;
  /** top-level body fields copied from the spec (ContentType: base_type) */
  extra?: Record<string, string>;
  /** read-only values of the live resource sent back with a replace (policy etag) */
  carry?: string[];
  /** a POST that replaces the whole resource, so sending it twice does no harm (it may be retried) */
  idempotent?: boolean;
}

export interface KindDef {
  kind: string;
  schema: string;
  /** key of this kind in the emulator's seed and store */
  seedKey: string;
  /**
   * id: the document's `id` (or the state, for kinds that can be created);
   * key: a spec field names the resource (`keyField`), nothing to create;
   * natural: the state, else the live resource with the same `naturalKey` found through the list.
   */
  identity: 'id' | 'key' | 'natural';
  keyField?: string;
  naturalKey?: string[];
  read: ReadEndpoint;
  list?: ListEndpoint;
  create?: CreateEndpoint;
  update: UpdateEndpoint;
  /** document checks beyond the schema */
  checks?: SpecCheck[];
  uniqueWhen?: UniqueWhen[];
  /** the document must carry `id` or this top-level field (Event: duplicate_from) when nothing else names it */
  createdFrom?: string;
}

/** Checks of one kind's documents that a JSON Schema cannot say; each returns problems as [spec path, message]. */
export type SpecCheck = (spec: Record<string, unknown>) => Array<[string, string]>;

/** "At most one document with `when` true per value of `fields`" (one default configuration per project and type). */
export interface UniqueWhen {
  when: string;
  fields: string[];
  message: string;
}
