// A schema with every $ref replaced by what it points to, for readers that get one file alone and cannot follow
// references to common.schema.json: `tapedeck schema KIND`, the kind reference (docs/kinds/) and the editor schemas.
// A $ref's sibling keywords (a field's own description, readOnly) win over the target's, as in the field model.
import { allSchemas, type JsonSchema } from './model.js';

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node a `$ref` names, and the file it is in. */
function target(ref: string, file: string): { node: JsonSchema; file: string } {
  const [refFile, pointer = ''] = ref.split('#');
  const inFile = refFile || file;
  let node: unknown = allSchemas().get(inFile);
  for (const part of pointer.split('/').filter(Boolean)) {
    node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  if (!isObject(node)) throw new Error(`schema ${file}: unresolvable $ref ${ref}`);
  return { node, file: inFile };
}

function resolve(node: unknown, file: string, path: string[]): unknown {
  if (Array.isArray(node)) return node.map((x) => resolve(x, file, path));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string') {
    const { $ref, ...siblings } = node;
    const t = target($ref, file);
    const key = `${t.file}#${$ref.split('#')[1] ?? ''}`;
    // Inlining a reference to itself would never end; no schema has one, and a new one should fail loudly.
    if (path.includes(key)) throw new Error(`schema ${file}: $ref ${$ref} is recursive and cannot be inlined`);
    const { $id: _id, $schema: _schema, ...body } = t.node;
    const own = resolve(siblings, file, path) as JsonSchema;
    // Spread twice: the field's own keywords come first for a reader, and their values win.
    return { ...own, ...(resolve(body, t.file, [...path, key]) as JsonSchema), ...own };
  }
  const out: JsonSchema = {};
  // Every definition ends up inlined where it is used, so the $defs themselves are left out.
  for (const [k, v] of Object.entries(node)) if (k !== '$defs') out[k] = resolve(v, file, path);
  return out;
}

/** The schema file `file` (a name in schemas/, e.g. offer.schema.json) with no `$ref` left in it. */
export function inlinedSchema(file: string): JsonSchema {
  const root = allSchemas().get(file);
  if (!root) throw new Error(`no schema ${file}`);
  return resolve(root, file, []) as JsonSchema;
}
