// The editor experience, checked with the editor's own engine: yaml-language-server (what VS Code's Red Hat YAML
// extension runs) over the Language Server Protocol, reading documents by their modelines as docs/documents.md tells
// users to write them. It must not flag what `tapedeck validate` accepts, must flag a typo, and hover shows descriptions.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlinedSchema } from '../../src/schema/resolve.js';
import { YamlLanguageServer } from '../helpers/lsp.js';

const root = resolve(import.meta.dirname, '../..');
/** Where a test document seems to be: beside the examples, so its modeline is the examples' relative one. */
const uriBesideExamples = (name: string) => pathToFileURL(join(root, 'examples/multi-env', name)).href;
const modeline = (schema: string) => `# yaml-language-server: $schema=../../schemas/editor/${schema}`;

const placeholders = [
  modeline('offer.schema.json'),
  'kind: Offer',
  'name: placeholders',
  'spec:',
  '  project_id: ${var.project}',
  '  priority: ${var.priority}',
  '  concurrency_limit: ${env.MAX_STREAMS}',
  '  applies_to_all: ${var.all}',
  '  visibility: ${var.visibility}',
  '  target: null',
  '---',
  modeline('event.schema.json'),
  'kind: Event',
  'name: placeholders',
  'duplicate_from: ${var.template_event}',
  'spec:',
  '  start_time: ${var.start}',
  '  status: ${env.STATUS}',
  '  physical_location: { coordinates: { latitude: "${var.lat}" } }',
  '',
].join('\n');

const typos = [
  modeline('offer.schema.json'),
  'kind: Offer',
  'name: fine',
  'spec:',
  '  priority: 10',
  '---',
  modeline('event.schema.json'),
  'kind: Event',
  'name: typo',
  'spec:',
  '  titel: Final',
  '  physical_location: { coordinates: { latitude: "${env.LAT}" } }',
  '',
].join('\n');

let lsp: YamlLanguageServer;
beforeAll(async () => {
  lsp = new YamlLanguageServer();
  await lsp.initialize();
});
afterAll(() => lsp.stop());

describe('yaml-language-server with the editor schemas', () => {
  const examples = ['basic', 'multi-env', 'rules'].flatMap((d) =>
    readdirSync(join(root, 'examples', d)).map((f) => `${d}/${f}`),
  );

  it.each(examples)('finds nothing wrong in examples/%s', async (f) => {
    const file = join(root, 'examples', f);
    expect(await lsp.open(pathToFileURL(file).href, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('accepts ${var.*}, ${env.*} and null where validate does, in every document of a file', async () => {
    expect(await lsp.open(uriBesideExamples('editor-placeholders.yaml'), placeholders)).toEqual([]);
  });

  it('flags a typo, and ${env.*} in a number (its value is text), in the second document of a file', async () => {
    expect(await lsp.open(uriBesideExamples('editor-typos.yaml'), typos)).toEqual([
      { line: 10, message: 'Property titel is not allowed.' },
      {
        line: 11,
        message: 'expected number: only a whole ${var.NAME} can stand in for one (${env.NAME} is always text)',
      },
    ]);
  });

  it("checks a rules file and a project file's rules by their own schema", async () => {
    const rules = [
      '# yaml-language-server: $schema=../../schemas/rules.schema.json',
      '- name: x',
      '  expresion: "true"',
      '  severity: block',
      '',
    ].join('\n');
    expect(await lsp.open(pathToFileURL(join(root, 'examples/rules/editor-typo.yaml')).href, rules)).toEqual([
      { line: 1, message: 'Missing property "expression".' },
      { line: 2, message: 'Property expresion is not allowed.' },
      { line: 3, message: expect.stringContaining('Value is not accepted. Valid values: "deny", "warn".') },
    ]);
    const project = [
      '# yaml-language-server: $schema=../../schemas/project.schema.json',
      'version: 1',
      'rules:',
      '  - name: y',
      '    expression: "true"',
      '    match: { actions: [delete] }',
      '',
    ].join('\n');
    expect(await lsp.open(uriBesideExamples('tapedeck-rules.yaml'), project)).toEqual([
      { line: 5, message: expect.stringContaining('Value is not accepted.') },
    ]);
  });

  it("shows a field's description on hover, also where a placeholder is accepted", async () => {
    const uri = uriBesideExamples('editor-hover.yaml');
    await lsp.open(uri, placeholders);
    const offer = inlinedSchema('offer.schema.json').properties.spec.properties;
    const event = inlinedSchema('event.schema.json').properties.spec.properties;
    expect(await lsp.hover(uri, 5, 4)).toContain(offer.priority.description);
    expect(await lsp.hover(uri, 16, 4)).toContain(event.start_time.description);
  });
});
