// The schemas an editor reads (schemas/editor/) accept what `tapedeck validate` accepts and refuse what it refuses:
// each case below is checked with both, and they must agree. Also: every example document names its editor schema
// at its top and passes it.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { validator } from '../../src/validate/schema.js';
import { runCli, testdir } from '../helpers/cli.js';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

/** An editor's view: draft-07, formats checked, the message keywords editors read known. */
function editorValidators(): (file: string) => ValidateFunction {
  const Ajv = require('ajv').default;
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  require('ajv-formats').default(ajv, ['date-time']);
  for (const keyword of ['patternErrorMessage', 'errorMessage']) ajv.addKeyword({ keyword, schemaType: 'string' });
  const compiled = new Map<string, ValidateFunction>();
  return (file) => {
    if (!compiled.has(file)) compiled.set(file, ajv.compile(JSON.parse(readFileSync(file, 'utf8'))));
    return compiled.get(file)!;
  };
}
const editor = editorValidators();
const editorSchema = (kindFile: string) => join(root, 'schemas/editor', kindFile);

const vars = {
  n: 5,
  yes: true,
  vis: 'VISIBILITY_PUBLISHED',
  day: '2026-06-01',
  when: '2026-06-01T20:00:00Z',
  pname: 'named-by-var',
  k: 'Offer',
  prices: [{ price: { currency_code: 'EUR', units: 3 } }],
  target: { event_ids: ['evt_1'] },
};
const env = { VIS: 'VISIBILITY_HIDDEN', NUM: '7', WHEN: '2026-06-01T20:00:00Z', FLAG: 'true', STATUS: 'SCHEDULED' };

const offer = (spec: string, head = 'kind: Offer') => ({
  schema: 'offer.schema.json',
  text: `${head}\nNAME\nspec:\n  project_id: p\n${spec}\n`,
});
const event = (spec: string) => ({ schema: 'event.schema.json', text: `kind: Event\nNAME\nid: ID\nspec:\n${spec}\n` });
const ladder = (stream: string) => ({
  schema: 'streaming-configuration.schema.json',
  text:
    `kind: StreamingConfiguration\nNAME\nspec:\n  project_id: p\n  name: NAME_ALSO\n  type: CONFIGURATION_TYPE_TRANSCODER_STREAMS\n` +
    `  data: { transcoder_streams: { streams: [ { ${stream} } ] } }\n`,
});
const policy = (spec: string) => ({ schema: 'policy.schema.json', text: `kind: Policy\nNAME\nspec:\n${spec}\n` });

const accepted: Array<[string, { schema: string; text: string }]> = [
  ['${var} in an int64', offer('  priority: ${var.n}')],
  ['${env} in an int64', offer('  concurrency_limit: ${env.NUM}')],
  ['${var} in a boolean', offer('  applies_to_all: ${var.yes}')],
  ['${var} in an enum', offer('  visibility: ${var.vis}')],
  ['${env} in an enum', offer('  visibility: ${env.VIS}')],
  ['text with ${env} in an enum', event('  status: EVENT_STATUS_${env.STATUS}')],
  ['${var} in a timestamp', event('  start_time: ${var.when}')],
  ['${env} in a timestamp', event('  start_time: ${env.WHEN}')],
  ['text with ${var} in a timestamp', event('  start_time: "${var.day}T20:00:00Z"')],
  ['${var} in an integer inside a list', ladder('video_bitrate: "${var.n}"')],
  ['${var} in a number', event('  physical_location: { coordinates: { latitude: "${var.n}" } }')],
  ['${var} for a list', offer('  offer_prices: ${var.prices}')],
  ['${var} for an object', offer('  target: ${var.target}')],
  [
    '${var} for the name',
    { schema: 'offer.schema.json', text: 'kind: Offer\nname: ${var.pname}\nspec:\n  project_id: p\n' },
  ],
  ['${var} for the kind', offer('  name: x', 'kind: ${var.k}')],
  // The reference names an event of another case, so that validate finds its target.
  ['${Kind/name.id} in a string', offer('  target: { event_ids: ["${EVENT_TARGET.id}"] }')],
  [
    'null for fields of every type',
    offer(
      '  applies_to_all: null\n  priority: null\n  visibility: null\n  target: null\n  offer_prices: null\n  localized_title: null',
    ),
  ],
  ['null for the id and response-only fields', event('  id: null\n  create_time: null')],
  [
    'money, ISO codes and a resource key',
    offer(
      '  offer_prices: [{ price: { currency_code: GBP, units: -4, nanos: -999999999 }, geo_restrictions_allow: { country_codes: [NL, GB] } }]',
    ),
  ],
  [
    'a resource key with a reference in it',
    policy('  resource_key: "${EVENT_TARGET.id}/p1/event"\n  policy: { bindings: [] }'),
  ],
  ['a project resource key', policy('  resource_key: p1/p1/project\n  policy: { bindings: [] }')],
  [
    'null for a map value',
    {
      schema: 'action-configuration.schema.json',
      text: 'kind: ActionConfiguration\nNAME\nspec:\n  annotation_type_id: at_x\n  configuration: { clip: null }\n',
    },
  ],
];

const refused: Array<[string, { schema: string; text: string }]> = [
  [
    '${env} in a field that names the resource',
    { schema: 'offer.schema.json', text: 'kind: Offer\nNAME\nspec:\n  project_id: ${env.PROJECT}\n' },
  ],
  ['${env} in the id', { schema: 'event.schema.json', text: 'kind: Event\nNAME\nid: ${env.VIS}\nspec: {}\n' }],
  [
    '${env} in duplicate_from',
    { schema: 'event.schema.json', text: 'kind: Event\nNAME\nduplicate_from: evt_${env.NUM}\nspec: {}\n' },
  ],
  [
    '${env} in moved_from',
    { schema: 'offer.schema.json', text: 'kind: Offer\nNAME\nmoved_from: ${env.VIS}\nspec:\n  project_id: p\n' },
  ],
  [
    '${env} in a content type base_type (its read query)',
    {
      schema: 'content-type.schema.json',
      text: 'kind: ContentType\nNAME\nid: ID\nspec:\n  project_id: p\n  base_type: ${env.VIS}\n',
    },
  ],
  [
    '${env} in a configuration type (its natural identity)',
    {
      ...ladder('video_bitrate: 1'),
      text: ladder('video_bitrate: 1').text.replace('CONFIGURATION_TYPE_TRANSCODER_STREAMS', '${env.VIS}'),
    },
  ],
  [
    '${env} in a policy resource_key',
    {
      schema: 'policy.schema.json',
      text: 'kind: Policy\nNAME\nspec:\n  resource_key: ${env.KEY}\n  policy: { bindings: [] }\n',
    },
  ],
  ['${env} in a boolean (its value is text)', offer('  applies_to_all: ${env.FLAG}')],
  ['${env} in an integer', ladder('video_bitrate: "${env.NUM}"')],
  ['${env} in a number', event('  physical_location: { coordinates: { latitude: "${env.NUM}" } }')],
  ['${env} for an object', offer('  target: ${env.VIS}')],
  ['${Kind/name.id} in an int64', offer('  priority: ${Event/final.id}')],
  ['${Kind/name.id} in an enum', offer('  visibility: ${Event/final.id}')],
  ['${Kind/name.id} in a timestamp', event('  start_time: ${Event/final.id}')],
  ['text with ${var} in an integer', ladder('video_bitrate: "1${var.n}"')],
  ['an escaped $${var} in an int64', offer('  priority: $${var.n}')],
  ['an unknown field', offer('  nmae: x')],
  ['a string for a boolean', offer('  applies_to_all: "yes"')],
  ['a word for an int64', offer('  priority: abc')],
  ['an object for an integer', ladder('video_bitrate: { a: 1 }')],
  ['a lower-case enum', offer('  visibility: published')],
  ['a timestamp that is not one', event('  start_time: tomorrow')],
  ['null in a list', offer('  offer_prices: [null]')],
  ['null for a required field', policy('  resource_key: null')],
  ['a response-only field', event('  create_time: "2026-01-01T00:00:00Z"')],
  ['a ${var} in a response-only field', event('  id: ${var.n}')],
  ['nanos beyond one unit', offer('  offer_prices: [{ price: { currency_code: GBP, units: 4, nanos: 4900000000 } }]')],
  [
    'nanos below minus one unit',
    offer('  offer_prices: [{ price: { currency_code: GBP, units: -4, nanos: -1000000000 } }]'),
  ],
  ['a currency code outside ISO 4217', offer('  offer_prices: [{ price: { currency_code: GBPP, units: 4 } }]')],
  [
    'a country code outside ISO 3166-1 alpha-2',
    offer('  offer_prices: [{ geo_restrictions_allow: { country_codes: [NL, XX] } }]'),
  ],
  ['a venue country code outside ISO 3166-1 alpha-2', event('  physical_location: { country_code: NLD }')],
  ['a resource key of two ids', policy('  resource_key: org1/proj1\n  policy: { bindings: [] }')],
  ['a resource key whose type is not lower case', policy('  resource_key: e1/p1/Event\n  policy: { bindings: [] }')],
  [
    'a value a closed enum does not have',
    {
      ...ladder('video_bitrate: 1'),
      text: ladder('video_bitrate: 1').text.replace('TRANSCODER_STREAMS', 'TRANSCODER_STREAM'),
    },
  ],
];

const cases = [
  ...accepted.map(([name, c]) => ({ name, ...c, ok: true })),
  ...refused.map(([name, c]) => ({ name, ...c, ok: false })),
];
const fileOf = (i: number) => `case-${String(i).padStart(2, '0')}.yaml`;
// Each document names its own resource: two with one name or one id would be refused for that alone.
const eventCase = cases.findIndex((c) => c.name === 'null for the id and response-only fields');
const texts = cases.map((c, i) =>
  c.text
    .replace('NAME_ALSO', `c${i}`)
    .replace('NAME', `name: c${i}`)
    .replace('ID', `evt_c${i}`)
    .replace('EVENT_TARGET', `Event/c${eventCase}`),
);

/** Which case files `tapedeck validate` finds errors in: one run over all of them, each case its own file. */
async function refusedByValidate(): Promise<Set<string>> {
  const files: Record<string, string | object> = { 'tapedeck.yaml': { version: 1, environments: { e: { vars } } } };
  texts.forEach((t, i) => {
    files[fileOf(i)] = t;
  });
  const dir = testdir(files);
  const r = await runCli(['validate', dir, '--env', 'e'], { cwd: dir, env });
  const errors = r.stderr.split('\n').filter((l) => /^\S+\.yaml:\d+:\d+: (?!warning:)/.test(l));
  return new Set(errors.map((l) => /case-\d+\.yaml/.exec(l)?.[0] ?? l));
}

describe('editor schemas agree with validate', async () => {
  const byValidate = await refusedByValidate();
  it.each(cases.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = cases[i];
    const doc = parse(texts[i]);
    const inEditor = editor(editorSchema(c.schema))(doc);
    expect({ validate: !byValidate.has(fileOf(i)), editor: inEditor }).toEqual({ validate: c.ok, editor: c.ok });
  });

  it('leave text that mixes a placeholder with other text to validate, which knows the value', () => {
    // "x${var.n}" can never be an integer, but telling that apart from "1${var.n}" needs the value: the editor
    // accepts both in an int64, and validate refuses the first one once the variable is filled in.
    const doc = parse(offer('  priority: "x${var.n}"').text.replace('NAME', 'name: mixed'));
    expect(editor(editorSchema('offer.schema.json'))(doc)).toBe(true);
  });
});

/** The YAML files of examples/ that hold no tapedeck documents: the emulator's seeds, the CI recipe, the agent's Deployment. */
const notDocuments = [
  'agent/deployment.yaml',
  'ci/github-actions.yml',
  'seed.yaml',
  'seeds/portable-production.yaml',
  'seeds/production.yaml',
  'seeds/staging.yaml',
];
const yamlFiles = readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const exampleFiles = yamlFiles.filter((f) => !notDocuments.includes(f));
const MODELINE = /^# yaml-language-server: \$schema=(\S+)$/;

describe('examples', () => {
  it('are every YAML file there but the seeds and the CI recipe', () => {
    expect(notDocuments.filter((f) => !yamlFiles.includes(f))).toEqual([]);
    expect(exampleFiles.length).toBeGreaterThan(5);
  });

  it.each(exampleFiles)('%s: each document names its schema at its top and passes it', (f) => {
    const file = join(root, 'examples', f);
    const docs = readFileSync(file, 'utf8')
      .split(/^---\n/m)
      .map((text) => ({ text, value: parse(text) as { kind?: string } }));
    // The project file (no kind) and the rules files are read as written, so they name their schemas themselves.
    const own = f.startsWith('rules/') ? 'rules.schema.json' : 'project.schema.json';
    const wanted = (kind?: string) =>
      kind === undefined ? `schemas/${own}` : `schemas/editor/${defaultRegistry.get(kind)?.schema}`;
    const results = docs.map(({ text, value }) => {
      const named = MODELINE.exec(text.split('\n')[0])?.[1];
      const schema = named ? relative(root, resolve(dirname(file), named)) : 'no modeline on the first line';
      const check = value.kind === undefined ? validator(own) : editor(join(root, wanted(value.kind)));
      return { schema, passes: check(value), errors: check.errors ?? null };
    });
    expect(results).toEqual(docs.map(({ value }) => ({ schema: wanted(value.kind), passes: true, errors: null })));
  });
});
