// The field model: each kind's JSON Schema turned once into a small tree that says, per field, what the diff,
// the emulator and the redactor need to know (message to descend into, atomic map, int64, timestamp, enum, ...).
// Field semantics are declared in schemas/ and read here, nowhere else.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export type FieldType =
  'message' | 'array' | 'map' | 'int64' | 'timestamp' | 'enum' | 'string' | 'integer' | 'number' | 'boolean' | 'any';

export interface Field {
  type: FieldType;
  readOnly: boolean;
  secret: boolean;
  /** identifies the resource: a different value means a different resource (x-identity) */
  identity?: boolean;
  /** message: its fields */
  props?: Record<string, Field>;
  /** array: its element */
  items?: Field;
  /** array: order does not matter */
  set?: boolean;
  /** array of messages: the field paths that identify an element (x-key), for showing what changed inside it */
  key?: string[];
  /** message: a Money (currency_code, units, nanos), shown as an amount */
  money?: boolean;
  /** enum: the zero value; known values where published (all of them for a closed enum, see `allowed`) */
  zero?: string;
  known?: string[];
  /** the only values the platform takes (the schema's `enum`: a closed enum, an ISO code); any other is refused */
  allowed?: string[];
  /** a field with presence: explicit false/0 differs from unset (v2 tri-state booleans) */
  presence?: boolean;
  /** an id of another resource (x-ref): kind names, and a noun for what lies outside tapedeck (asset, project);
   *  on a map, each of its values. Read by the portable export. */
  ref?: string[];
  /** a key made of "/"-separated ids (x-ref-parts): per form (by its number of parts), each part's x-ref, or null
   *  for a part that is plain text */
  refParts?: Array<Array<string | null>>;
  /** a resource: the fields that tell it apart from the others of its kind on the platform (x-natural-key), looked
   *  for before a create */
  naturalKey?: string[];
  /** a resource: the fields a create must carry (x-create-required): the platform refuses a create without them */
  createRequired?: string[];
  /** array of event ids whose live time a change to this resource touches (x-live-link): change windows read it */
  liveLink?: boolean;
  /** a resource that is itself an event (x-live-event): a change to it touches its own live time */
  liveEvent?: boolean;
}

// JSON Schema documents are read field by field where their shape is known; the rest stays open.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonSchema = Record<string, any>;

export const schemaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schemas');

let cache: Map<string, JsonSchema> | undefined;
let digest = '';
/** Every schema file in schemas/, by file name (which is also its $id). */
export function allSchemas(): Map<string, JsonSchema> {
  if (!cache) {
    cache = new Map();
    const hash = createHash('sha256');
    for (const f of readdirSync(schemaDir)
      .filter((n) => n.endsWith('.schema.json'))
      .sort()) {
      const text = readFileSync(join(schemaDir, f), 'utf8');
      hash.update(`${f}\n${text}\n`);
      cache.set(f, JSON.parse(text));
    }
    digest = hash.digest('hex');
  }
  return cache;
}

/** A hash of every schema file's name and text: precompiled validators are used only for exactly these. */
export function schemasDigest(): string {
  allSchemas();
  return digest;
}

function deref(node: JsonSchema, file: string): { node: JsonSchema; file: string } {
  let cur = node;
  let curFile = file;
  while (cur.$ref) {
    const [refFile, pointer] = String(cur.$ref).split('#');
    const target = refFile ? refFile : curFile;
    const root = allSchemas().get(target);
    if (!root) throw new Error(`schema ${curFile}: unresolvable $ref ${cur.$ref}`);
    const extra = { ...cur };
    delete extra.$ref;
    let n: JsonSchema = root;
    for (const part of (pointer ?? '').split('/').filter(Boolean)) n = n[part];
    cur = { ...n, ...extra };
    curFile = target;
  }
  return { node: cur, file: curFile };
}

function build(raw: JsonSchema, file: string): Field {
  const { node, file: f } = deref(raw, file);
  const base = {
    readOnly: node.readOnly === true,
    secret: node['x-secret'] === true,
    presence: node['x-presence'] === true,
    ...(node['x-identity'] === true ? { identity: true } : {}),
    ...(node['x-ref'] ? { ref: [node['x-ref']].flat().map(String) } : {}),
    ...(node['x-ref-parts'] ? { refParts: node['x-ref-parts'] } : {}),
    ...(node['x-live-link'] === true ? { liveLink: true } : {}),
    ...(node['x-live-event'] === true ? { liveEvent: true } : {}),
    ...(Array.isArray(node.enum) ? { allowed: node.enum.map(String) } : {}),
  };
  if (node['x-int64']) return { ...base, type: 'int64' };
  if (node['x-enum']) return { ...base, type: 'enum', zero: node.default, known: enumValues(node, f) };
  if (node.format === 'date-time') return { ...base, type: 'timestamp' };
  if (node['x-atomic']) return { ...base, type: 'map' };
  if (node.type === 'array') {
    const items = build(node.items ?? {}, f);
    const key = node['x-key'] === undefined ? undefined : [node['x-key']].flat().map(String);
    if (key) checkKey(key, items, f, 'x-key', "the array's elements'");
    return { ...base, type: 'array', set: node['x-set'] === true, items, ...(key ? { key } : {}) };
  }
  if (node.type === 'object' && node.properties) {
    const props: Record<string, Field> = {};
    for (const [k, v] of Object.entries(node.properties)) props[k] = build(v as JsonSchema, f);
    // Money is a shape, not a name: the same three fields wherever the API uses one.
    const money = Object.keys(props).sort().join() === 'currency_code,nanos,units';
    const message: Field = { ...base, type: 'message', props, ...(money ? { money: true } : {}) };
    const naturalKey = node['x-natural-key'] === undefined ? undefined : [node['x-natural-key']].flat().map(String);
    if (naturalKey) checkKey(naturalKey, message, f, 'x-natural-key', "the resource's");
    const createRequired = node['x-create-required'] as string[] | undefined;
    if (createRequired) checkKey(createRequired, message, f, 'x-create-required', "the resource's");
    return { ...message, ...(naturalKey ? { naturalKey } : {}), ...(createRequired ? { createRequired } : {}) };
  }
  if (node.type === 'object') return { ...base, type: 'map' };
  if (typeof node.type === 'string' && ['string', 'integer', 'number', 'boolean'].includes(node.type)) {
    return { ...base, type: node.type as FieldType };
  }
  return { ...base, type: 'any' };
}

/**
 * An enum's known values. `x-enum: true` is a closed enum, whose every member is public: its `enum` lists them.
 * `x-enum: "partial"`: the platform's full list is not public; `examples` holds the values known (if any).
 */
function enumValues(node: JsonSchema, file: string): string[] | undefined {
  const closed = node['x-enum'] === true;
  if (closed !== Array.isArray(node.enum))
    throw new Error(
      `schema ${file}: x-enum ${String(node['x-enum'])} ${closed ? 'needs' : 'cannot have'} an enum list`,
    );
  return closed ? node.enum : node.examples;
}

/** A key (x-key, x-natural-key) must name scalar fields: a key that names nothing would silently match nothing. */
function checkKey(key: string[], of: Field, file: string, keyword: string, whose: string): void {
  for (const path of key) {
    const f = fieldAt(of, path);
    if (!f || ['message', 'array', 'map', 'any'].includes(f.type))
      throw new Error(`schema ${file}: ${keyword} ${path} is not a scalar field of ${whose} fields`);
  }
}

const models = new Map<string, Field>();
/** The field model of a kind's API resource (the document's `spec`). */
export function resourceModel(schemaFile: string): Field {
  let m = models.get(schemaFile);
  if (!m) {
    const root = allSchemas().get(schemaFile);
    if (!root) throw new Error(`no schema ${schemaFile}`);
    m = build(root.$defs.resource, schemaFile);
    models.set(schemaFile, m);
  }
  return m;
}

/** The model of the field at a dot path inside a message, or undefined if no such field. */
export function fieldAt(model: Field, path: string): Field | undefined {
  let cur: Field | undefined = model;
  for (const part of path.split('.')) {
    if (!cur || cur.type !== 'message') return undefined;
    cur = cur.props?.[part];
  }
  return cur;
}

/**
 * A key of "/"-separated ids (x-ref-parts) read part by part: each part with what it is (its x-ref, or null for plain
 * text), by the form with as many parts; undefined when the field has no forms or none has that many parts.
 */
export function keyParts(field: Field | undefined, key: string): Array<[part: string, ref: string | null]> | undefined {
  const parts = key.split('/');
  const form = field?.refParts?.find((f) => f.length === parts.length);
  return form && parts.map((p, i) => [p, form[i]]);
}

/** A key as one segment of a JSON pointer (RFC 6901), and back. */
export const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
export const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The model of the value at a JSON pointer inside a message (array items included; anything below a free-form map
 *  or an `any` field is that field), or undefined if the message has no such field. */
export function fieldAtPointer(model: Field, pointer: string): Field | undefined {
  let cur: Field | undefined = model;
  for (const part of pointer.split('/').slice(1)) {
    if (cur?.type === 'map' || cur?.type === 'any') return cur;
    cur = cur?.type === 'message' ? cur.props?.[unescapePointer(part)] : cur?.type === 'array' ? cur.items : undefined;
  }
  return cur;
}
