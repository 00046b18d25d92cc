// `npm run docs`: the reference of every kind (docs/kinds/<kind>.md) and the editor schemas
// (schemas/editor/<kind>.schema.json), generated from the schemas, the kind files (src/kinds/) and the examples, so
// they cannot drift from what tapedeck does. test/unit/kind-docs.test.ts regenerates them in memory and fails when
// the committed files differ.
import { readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtinKinds } from '../src/kinds/registry.js';
import type { JsonSchema } from '../src/schema/model.js';
import { editorSchema } from './editor-schemas.js';
import { inlinedSchema } from '../src/schema/resolve.js';
import { exampleOf, kindFacts, packageName } from './kind-facts.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Folders whose every file is generated: a file there that is not generated any more is removed. */
export const generatedDirs = { docs: 'docs/kinds', editor: 'schemas/editor' };

const base = (schemaFile: string) => schemaFile.replace(/\.schema\.json$/, '');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => `\`${s}\``;
/** Descriptions are lower-case fragments, as editors show them; in a table they read as sentences. */
const sentence = (s: string) => (/^[a-z]+(?=[\s,:;]|$)/.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s);

/** The type of a schema node, as the reference shows it. */
function typeOf(n: JsonSchema): string {
  if (n.const !== undefined) return code(JSON.stringify(n.const));
  if (n['x-int64']) return 'int64';
  if (n['x-enum']) return 'enum';
  if (n.format === 'date-time') return 'timestamp';
  if (n['x-atomic']) return 'map';
  if (n.type === 'array') return `list of ${n.items?.properties ? 'object' : typeOf(n.items ?? {})}`;
  if (typeof n.type === 'string') return n.type;
  return 'any';
}

/** The note listing an enum's values, always shown (a description saying "values" does not list them). */
const ENUM_VALUES = /^(known )?values:/;

/** What a row says beside the field's own description: what the schema's keywords mean for tapedeck. */
function notes(n: JsonSchema, required: boolean): string[] {
  const out: string[] = [];
  if (required) out.push('**required**');
  if (n['x-identity']) out.push('**identifies the resource**: another value names another resource');
  if (n['x-names']) out.push('names a resource: never from `${env.*}`');
  if (n.readOnly) out.push('response-only: not allowed in a document');
  if (n['x-secret']) out.push('secret: never shown');
  // What an id points at (x-ref, on the field or its elements): export --portable writes it as a reference or variable.
  const ref = n['x-ref'] ?? n.items?.['x-ref'];
  if (ref)
    out.push(
      `an id of: ${[ref]
        .flat()
        .map((r: string) =>
          /^[A-Z]/.test(r) ? `[${r}](${r.replace(/(?<=[a-z])([A-Z])/g, '-$1').toLowerCase()}.md)` : r,
        )
        .join(', ')}`,
    );
  if (n['x-ref-parts']) out.push('made of ids (the organization, a project, a resource)');
  if (n['x-presence']) out.push('`false`/`0` is a value, unlike unset');
  if (n['x-enum']) {
    // Closed (x-enum true): its `enum` is every value. Partial: the platform's full list is not public.
    const closed = n['x-enum'] === true;
    const known: string[] = ((closed ? n.enum : n.examples) ?? []).filter((v: string) => v !== n.default);
    const list = known.map(code).join(', ');
    const partial =
      "the platform's full list is not public: another upper-case name is sent with a warning, and refused when it is a slip of a known one";
    if (closed) out.push(`values: ${list} (the whole list: no other value is accepted)`);
    else out.push(known.length ? `known values: ${list} (${partial})` : 'values: not published (any upper-case name)');
    out.push(`unset: ${code(n.default)}`);
  }
  if (n['x-int64']) out.push('a number or a decimal string; sent as a string');
  if (n.format === 'date-time') out.push('RFC 3339, compared as an instant');
  if (n.type === 'array') out.push(n['x-set'] ? 'compared as a set (order does not matter)' : 'replaced whole');
  if (n['x-atomic']) out.push('replaced whole');
  if (n.minLength === 1 && !n['x-enum']) out.push('not empty');
  return out;
}

interface Row {
  path: string;
  node: JsonSchema;
  required: boolean;
}

/** One row per field, nested fields as dotted paths (`offer_prices[].price.units`). */
function rows(n: JsonSchema, prefix: string, out: Row[] = []): Row[] {
  const required = new Set<string>(n.required ?? []);
  for (const [k, child] of Object.entries<JsonSchema>(n.properties ?? {})) {
    const path = `${prefix}${k}`;
    out.push({ path, node: child, required: required.has(k) });
    if (child.properties) rows(child, `${path}.`, out);
    else if (child.type === 'array' && child.items?.properties) rows(child.items, `${path}[].`, out);
  }
  return out;
}

function table(list: Row[]): string[] {
  return [
    '| field | type | description |',
    '|---|---|---|',
    ...list.map((r) => {
      const own = r.node.description ?? '';
      // A note the description already makes (hover shows only the description, so some say it too) is left out.
      const text = [
        own,
        ...notes(r.node, r.required).filter((x) => ENUM_VALUES.test(x) || !own.includes(x.split(/[:,(]/)[0].trim())),
      ]
        .filter(Boolean)
        .map(sentence)
        .join('. ');
      return `| ${code(r.path)} | ${typeOf(r.node)} | ${cell(text)} |`;
    }),
  ];
}

/** docs/kinds/<kind>.md */
export function kindDoc(kind: string): string {
  const k = builtinKinds.find((x) => x.kind === kind)!;
  const schema = inlinedSchema(k.schema);
  const name = base(k.schema);
  const { spec, ...top } = schema.properties as Record<string, JsonSchema>;
  const topRows = rows({ ...schema, properties: top }, '');
  return [
    `# ${kind}`,
    '',
    `<!-- Generated by \`npm run docs\` from schemas/${k.schema}, src/kinds/${name}.ts and examples/: edit those, not this file. -->`,
    '',
    `${sentence(schema.description)}.`,
    '',
    ...kindFacts(k).map((f) => `- ${f}`),
    '',
    `Schema: [schemas/${k.schema}](../../schemas/${k.schema}) (\`tapedeck schema ${kind}\` prints it with its references resolved); ` +
      `for editors: [schemas/editor/${k.schema}](../../schemas/editor/${k.schema}).`,
    '',
    '## Document',
    '',
    ...table(topRows),
    '',
    '## spec',
    '',
    `${sentence(spec.description)}. \`null\` clears a field.`,
    '',
    ...table(rows(spec, '')),
    '',
    '## Example',
    '',
    '```yaml',
    `# yaml-language-server: $schema=../node_modules/${packageName()}/schemas/editor/${k.schema}`,
    exampleOf(kind, join(root, 'examples')),
    '```',
    '',
  ].join('\n');
}

/** docs/kinds/README.md: the index. */
function index(): string {
  const kinds = [...builtinKinds].sort((a, b) => a.kind.localeCompare(b.kind));
  return [
    '# Kinds',
    '',
    '<!-- Generated by `npm run docs` (scripts/kind-docs.ts): edit the schemas and kind files, not this file. -->',
    '',
    'One page per kind: its fields with their descriptions and types, how tapedeck finds, creates and updates it, and an example.',
    '',
    '| kind | what it is |',
    '|---|---|',
    ...kinds.map(
      (k) => `| [${k.kind}](${base(k.schema)}.md) | ${cell(sentence(inlinedSchema(k.schema).description))} |`,
    ),
    '',
  ].join('\n');
}

/** Every generated file: path relative to the repository -> content. */
export function generatedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  files.set(`${generatedDirs.docs}/README.md`, index());
  for (const k of builtinKinds) {
    files.set(`${generatedDirs.docs}/${base(k.schema)}.md`, kindDoc(k.kind));
    files.set(`${generatedDirs.editor}/${k.schema}`, `${JSON.stringify(editorSchema(k.schema), null, 2)}\n`);
  }
  return files;
}

/** Files in the generated folders that are not generated (any more). */
export function strayFiles(files: Map<string, string>): string[] {
  return Object.values(generatedDirs).flatMap((dir) => {
    let names: string[] = [];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      // the folder is made below
    }
    return names.map((n) => `${dir}/${n}`).filter((p) => !files.has(p));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = generatedFiles();
  for (const p of strayFiles(files)) rmSync(join(root, p));
  let changed = 0;
  for (const [p, text] of files) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    let old = '';
    try {
      old = readFileSync(join(root, p), 'utf8');
    } catch {
      // a new file
    }
    if (old !== text) {
      writeFileSync(join(root, p), text);
      changed++;
    }
  }
  console.log(`${files.size} files generated, ${changed} changed`);
}
