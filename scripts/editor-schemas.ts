// The schemas an editor reads (schemas/editor/<kind>.schema.json), made from the kind schemas by `npm run docs`.
// `tapedeck validate` checks a document after ${var.*}/${env.*} are filled in and with its nulls removed; an editor
// sees the text as written. So these accept, beside what the kind schema accepts, exactly what the filling in and
// the removal can turn into something valid, and nothing else:
// - null for every field that may be left out (a property that is not required, a map value; not an array item);
// - a whole-string ${var.NAME} anywhere: a variable keeps its type, so it may hold a number, a list or a mapping;
// - ${env.NAME} where a string is accepted (a value from the environment is always a string);
// - in a string with a pattern or a format (int64, enum, timestamp, name, ...), text holding a ${var.*}/${env.*}:
//   whether it is valid depends on the value, which only validate knows, so the editor does not flag it;
// - a response-only (readOnly) field: only null, since validate refuses any value there;
// - no ${env.*} in a field that names the resource or goes into a request path (src/kinds/naming.ts).
// Plain strings accept any text already, ${Kind/name.id} included, and so does validate.
import { namingFields } from '../src/kinds/naming.js';
import { builtinKinds } from '../src/kinds/registry.js';
import { inlinedSchema } from '../src/schema/resolve.js';
import type { JsonSchema } from '../src/schema/model.js';

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
/** a whole-string variable (as interpolate.ts reads it); `$${` is an escape, so it cannot start one */
export const VAR_WHOLE = `^\\$\\{var\\.${NAME}\\}$`;
/** any text holding an environment value that is not escaped */
const ENV_ANYWHERE = `(?:^|[^$])\\$\\{env\\.${NAME}\\}`;

/** any text holding a variable or an environment value that is not escaped */
export const HAS_PLACEHOLDER = `(?:^|[^$])\\$\\{(?:var|env)\\.${NAME}\\}`;

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Our own annotation keywords mean nothing to an editor. */
function withoutAnnotations(node: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(node).filter(([k]) => !k.startsWith('x-')));
}

const typesOf = (node: JsonSchema): string[] | undefined =>
  node.type === undefined ? undefined : Array.isArray(node.type) ? [...node.type] : [node.type];
const typeKeyword = (types: string[]) => (types.length === 1 ? types[0] : types);

/** The node with its fields loosened, itself as it was. */
function loosenInside(raw: JsonSchema): JsonSchema {
  const node = withoutAnnotations(raw);
  if (isObject(node.properties)) {
    const required = new Set<string>(node.required ?? []);
    node.properties = Object.fromEntries(
      Object.entries(node.properties).map(([k, v]) => [k, loosen(v as JsonSchema, !required.has(k))]),
    );
  }
  if (isObject(node.additionalProperties)) node.additionalProperties = loosen(node.additionalProperties, true);
  if (isObject(node.items)) node.items = loosen(node.items, false);
  return node;
}

function loosen(raw: JsonSchema, nullable: boolean): JsonSchema {
  const node = loosenInside(raw);
  // An editor cannot read x-enum: its description says that the values shown are not all there are.
  if (raw['x-enum'] === 'partial')
    node.description = `${String(node.description ?? '')} (the platform's full list of values is not public)`.trim();
  if (node.readOnly === true) {
    const { description, title } = node;
    const errorMessage = 'a response-only field set by the server: remove it from spec';
    return {
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      readOnly: true,
      type: 'null',
      errorMessage,
    };
  }
  const nullType = nullable ? ['null'] : [];
  // A field that names the resource (x-identity, x-names) cannot come from the environment: validate refuses it there.
  const named =
    raw['x-identity'] || raw['x-names']
      ? {
          not: { type: 'string', pattern: ENV_ANYWHERE },
          errorMessage: 'names the resource, so it cannot come from ${env.*}: use ${var.NAME}',
        }
      : {};
  if (node.const !== undefined || node.enum !== undefined) {
    const values: unknown[] = node.const !== undefined ? [node.const] : node.enum;
    // The alternatives say the types (a string of the list, a placeholder, null): a `type` beside them would refuse null.
    const { const: _c, enum: _e, type: _t, ...rest } = node;
    const placeholder = values.every((v) => typeof v === 'string') ? HAS_PLACEHOLDER : VAR_WHOLE;
    return {
      ...rest,
      anyOf: [{ enum: values }, { type: 'string', pattern: placeholder }, ...nullType.map((t) => ({ type: t }))],
      ...named,
    };
  }
  const types = typesOf(node);
  if (!types) return node; // any value: nothing to loosen
  if (types.includes('string') && node.format !== undefined) {
    const { format, pattern, ...rest } = node;
    const strict = pattern === undefined ? { format } : { format, pattern };
    return { ...rest, type: typeKeyword([...types, ...nullType]), anyOf: [strict, { pattern: HAS_PLACEHOLDER }] };
  }
  if (types.includes('string')) {
    if (node.pattern === undefined) return { ...node, type: typeKeyword([...types, ...nullType]), ...named };
    const pattern = `(?:${node.pattern})|${HAS_PLACEHOLDER}`;
    const message = patternMessage(raw);
    return {
      ...node,
      type: typeKeyword([...types, ...nullType]),
      pattern,
      ...(message ? { patternErrorMessage: message } : {}),
      ...named,
    };
  }
  // integer, number, boolean, object, array: only a variable (of any type) can stand in for one
  const patternErrorMessage = `expected ${types.join(' or ')}: only a whole \${var.NAME} can stand in for one (\${env.NAME} is always text)`;
  return { ...node, type: [...types, ...nullType, 'string'], pattern: VAR_WHOLE, patternErrorMessage };
}

/** What an editor says when a string does not match (yaml-language-server and VS Code read patternErrorMessage);
 *  without it they show the regular expression. The same words as validate's messages. */
function patternMessage(raw: JsonSchema): string | undefined {
  const or = ' (or text with a ${var.NAME} or ${env.NAME})';
  if (raw['x-int64']) return `not an integer: write a number or a decimal string${or}`;
  if (raw['x-enum']) return `not an enum name: upper case, e.g. ${String(raw.examples?.[1] ?? raw.default)}${or}`;
  if (typeof raw['x-message'] === 'string') return `${raw['x-message'].replace(/^is not/, 'not')}${or}`;
  return undefined;
}

/** The editor schema of one kind schema file (e.g. offer.schema.json): self-contained, JSON Schema draft-07. */
export function editorSchema(file: string): JsonSchema {
  const { $schema: _s, $id: _i, ...root } = inlinedSchema(file);
  // The spec fields the kind file builds paths from or names the resource by are marked as naming it (validate
  // reads the same from src/kinds/naming.ts).
  const kind = builtinKinds.find((k) => k.schema === file);
  const spec = root.properties?.spec?.properties ?? {};
  for (const f of kind ? namingFields(kind) : [])
    if (f.startsWith('spec.') && spec[f.slice(5)]) spec[f.slice(5)] = { ...spec[f.slice(5)], 'x-names': true };
  // draft-07 because every editor's JSON Schema support has it; nothing here needs a later draft. The document
  // itself is not a field: only what is inside it is loosened.
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...loosenInside(root) };
}
