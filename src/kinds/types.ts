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

/** A create: its answer wraps the created resource under `wrapper`. One variant per request style. */
export type CreateEndpoint = Endpoint & { wrapper: string } &
  /** the resource's fields at the top level of the body (operation 7) */
  (
    | { style: 'fields' }
    /** a copy of another resource: {<idField>: source, <bodyKey>: fields, update_mask}; in its string fields
     *  `placeholder` stands for the source's value of the same field (`%@`) */
    | { style: 'duplicate'; idField: string; bodyKey: string; placeholder: string }
  );

interface UpdateCommon extends Endpoint {
  /** a write that replaces the whole resource, so sending it twice does no harm (it may be retried) */
  idempotent?: boolean;
}

/** An update. One variant per request style. */
export type UpdateEndpoint = UpdateCommon &
  (
    | {
        /** partial body + update_mask */
        style: 'patch';
        /** body field holding the id (offer_id); absent: none */
        idField?: string;
        /** body field holding the changed part of the resource (offer); absent: `resource` */
        bodyKey?: string;
        /** the id is also written inside the resource (ContentType: type.id) */
        idInResource?: boolean;
        /** top-level body fields copied from the spec (ContentType: base_type) */
        extra?: Record<string, string>;
      }
    | {
        /** the whole resource, live values carried for unmanaged fields */
        style: 'replace';
        /** read-only values of the live resource sent back with a replace (policy etag) */
        carry?: string[];
      }
  );

/**
 * How a document names its live resource.
 * id: the document's `id` (or the state, for kinds that can be created);
 * key: a spec field names the resource, nothing to create;
 * natural: the state, else the live resource whose `fields` equal the document's, found through the list.
 */
export type Identity = { by: 'id' } | { by: 'key'; field: string } | { by: 'natural'; fields: string[] };

export interface KindDef {
  kind: string;
  schema: string;
  /** key of this kind in the emulator's seed and store */
  seedKey: string;
  identity: Identity;
  read: ReadEndpoint;
  list?: ListEndpoint;
  /** a create from the document's fields */
  create?: CreateEndpoint;
  /** a create by copying another resource (a document with `createdFrom`, e.g. Event's duplicate_from) */
  duplicate?: CreateEndpoint & { style: 'duplicate' };
  update: UpdateEndpoint;
  /** document checks beyond the schema */
  checks?: SpecCheck[];
  uniqueWhen?: UniqueWhen[];
  /** the top-level field naming the resource a `duplicate` copies (Event: duplicate_from) */
  createdFrom?: string;
}

/** How a document of this kind is created: by copying `source` when it names one, else from its fields. */
export const createFor = (k: KindDef, source: string | undefined): CreateEndpoint | undefined =>
  source ? k.duplicate : k.create;

/** Whether tapedeck can create a resource of this kind at all. */
export const creatable = (k: KindDef) => !!(k.create || k.duplicate);

/** Checks of one kind's documents that a JSON Schema cannot say; each returns problems as [spec path, message]. */
export type SpecCheck = (spec: Record<string, unknown>) => Array<[string, string]>;

/** "At most one document with `when` true per value of `fields`" (one default configuration per project and type). */
export interface UniqueWhen {
  when: string;
  fields: string[];
  message: string;
}
