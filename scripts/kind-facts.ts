// What the kind reference says about a kind beyond its fields, read from its kind file (src/kinds/<kind>.ts): how
// tapedeck finds the live resource, creates and updates it, and where each endpoint comes from. Also the example
// of each kind, taken from examples/.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CreateEndpoint, Endpoint, KindDef, UpdateEndpoint } from '../src/kinds/types.js';
import { creatable } from '../src/kinds/types.js';
import { inlinedSchema } from '../src/schema/resolve.js';
import type { JsonSchema } from '../src/schema/model.js';

const code = (s: string) => `\`${s}\``;

/** The package name, for the modeline of an installed copy. */
export function packageName(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string }).name;
}

function source(e: Endpoint): string {
  switch (e.source) {
    case 'spec':
      return 'fixed by the API spec';
    case 'docs':
      return "from the platform's public docs; overridable in `tapedeck.yaml` `endpoints`";
    case 'assumed':
      return 'assumed: neither the API spec nor the docs give it; overridable in `tapedeck.yaml` `endpoints`';
  }
}

const call = (e: Endpoint) => `${code(`${e.method} ${e.path}`)} (${source(e)})`;

/** Paths of the fields marked x-identity, e.g. spec.project_id. */
function identityFields(n: JsonSchema, prefix: string, out: string[] = []): string[] {
  for (const [k, child] of Object.entries<JsonSchema>(n.properties ?? {})) {
    if (child['x-identity']) out.push(`${prefix}${k}`);
    if (child.properties) identityFields(child, `${prefix}${k}.`, out);
  }
  return out;
}

function identity(k: KindDef): string {
  switch (k.identity.by) {
    case 'key':
      return `**Identified by** ${code(`spec.${k.identity.field}`)}: each value names one resource; the document has no \`id\`.`;
    case 'natural':
      return (
        `**Identified by** the document's \`id\` when it has one; else the state, once tapedeck has created or adopted it; ` +
        `else the live ${k.kind} whose ${k.identity.fields.map((f) => code(f)).join(', ')} equal the document's, found through the list ` +
        'and adopted (never duplicated); else it is created.'
      );
    case 'id':
      return creatable(k)
        ? "**Identified by** the document's `id`; without one, by the state entry tapedeck wrote when it created the resource."
        : `**Identified by** the document's \`id\`, which is required: tapedeck cannot create a ${k.kind}.`;
  }
}

function createText(e: CreateEndpoint, k: KindDef): string {
  if (e.style === 'fields') {
    return `**Created** by ${call(e)}, the document's fields at the top level of the body; the answer's ${code(e.wrapper)} is the new resource.`;
  }
  return (
    `**Created by duplication** when the document gives ${code(k.createdFrom ?? 'the source')}: ${call(e)} with ` +
    `${code(`{${e.idField}: <source>, ${e.bodyKey}: {...}, update_mask}`)}; in a string field ${code(e.placeholder)} stands for the ` +
    "source's value of that field."
  );
}

function updateText(e: UpdateEndpoint): string {
  if (e.style === 'replace') {
    const carry = e.carry?.length ? ` and the live ${e.carry.map(code).join(', ')}` : '';
    const retry = e.idempotent ? '; sending it twice does no harm, so it is retried' : '';
    return `**Updated** by ${call(e)} with the whole resource: the live values of the fields the document leaves out${carry} are sent back${retry}.`;
  }
  const parts = [
    ...(e.idField ? [`${e.idField}: <id>`] : []),
    `${e.bodyKey ?? 'resource'}: {changed fields${e.idInResource ? ', id' : ''}}`,
    ...Object.keys(e.extra ?? {}).map((x) => `${x}: <spec.${x}>`),
    'update_mask',
  ];
  return `**Updated** by ${call(e)} with only the changed fields and an \`update_mask\` naming them: ${code(`{${parts.join(', ')}}`)}.`;
}

/** The bullet points of a kind's page, in the order a reader asks: which one, how made, how changed, what else. */
export function kindFacts(k: KindDef): string[] {
  const facts = [identity(k)];
  const ident = identityFields(inlinedSchema(k.schema).properties.spec, 'spec.');
  if (ident.length && k.identity.by !== 'key') {
    facts.push(
      `**Identity fields**: ${ident.map(code).join(', ')}. Another value names another resource: for one tapedeck created, ` +
        'the plan creates a new one and releases the old; for a document with an `id`, it is a plan error. Never a PATCH, never drift.',
    );
  }
  if (k.create) facts.push(createText(k.create, k));
  if (k.duplicate) facts.push(createText(k.duplicate, k));
  if (!creatable(k) && k.identity.by === 'key')
    facts.push('**Never created**: there is nothing to create; the update sets it.');
  facts.push(updateText(k.update));
  const notFound = k.read.notFound === 'empty' ? '; one never set reads as empty' : '';
  const query = k.read.query ? ` with ${Object.keys(k.read.query).map(code).join(', ')} in the query` : '';
  facts.push(`**Read** by ${call(k.read)}${query}${notFound}.`);
  if (k.list) facts.push(`**Listed** by ${call(k.list)}, narrowed by ${k.list.scope.map(code).join(', ')}.`);
  if (creatable(k)) {
    facts.push(
      k.list
        ? '**A create whose answer was lost** is found through the list by its fields, so it is never made twice.'
        : '**A create whose answer was lost** cannot be looked up (the kind has no list): it ends `unknown` and the next plan says how to resolve it.',
    );
    const key = inlinedSchema(k.schema).properties.spec['x-natural-key'] as string[] | undefined;
    if (!k.list) facts.push('**Duplicates** cannot be checked before a create (no list): the plan says so.');
    else if (key && k.identity.by !== 'natural') {
      facts.push(
        `**Looked for before a create** by its natural key ${key.map((f) => code(f)).join(' + ')}: a live one ` +
          'nobody manages stops the plan, naming `tapedeck import` (or `allow_duplicate: true`).',
      );
    }
  }
  for (const u of k.uniqueWhen ?? []) {
    facts.push(
      `**At most one** document with ${code(`${u.when}: true`)} per ${u.fields.map(code).join(' + ')} (validate refuses ${u.message}).`,
    );
  }
  if (k.checks?.length)
    facts.push(
      `**Checked beyond the schema** by \`validate\`: the checks in \`src/kinds/${k.schema.replace(/\.schema\.json$/, '')}.ts\`.`,
    );
  return facts;
}

const MODELINE = /^#\s*yaml-language-server:/;

/** The text of the first document of `kind` under `dir` (basic/ before multi-env/), without its leading comments. */
export function exampleOf(kind: string, dir: string): string {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  for (const f of files) {
    for (const doc of readFileSync(join(dir, f), 'utf8').split(/^---$/m)) {
      const lines = doc.replace(/^\n/, '').replace(/\n+$/, '').split('\n');
      const start = lines.findIndex((l) => !l.startsWith('#'));
      const body = lines.slice(start);
      if (body.some((l) => l === `kind: ${kind}`)) return body.filter((l) => !MODELINE.test(l)).join('\n');
    }
  }
  throw new Error(`no example of ${kind} under ${dir}: add one to examples/`);
}
