// Every validation rule, as a user meets it: `tapedeck validate` prints file:line:col: message, exits 1, sends nothing.
import { describe, expect, it } from 'vitest';
import { runCli, testdir } from '../helpers/cli.js';

const offer = (name: string, spec: object = { project_id: 'p', name: 'x' }) =>
  `kind: Offer\nname: ${name}\nspec:\n${Object.entries(spec)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n`;

const cases: Array<[string, Record<string, string>, RegExp]> = [
  ['YAML syntax error', { 'a.yaml': 'kind: Offer\nname: [unclosed\n' }, /^a\.yaml:3:1: YAML: /m],
  // Plain scalars cannot start with a flow indicator: `yaml` refuses them, and the quick reader must not read them.
  ['a value starting with ","', { 'a.yaml': 'kind: Offer\nname: ,x\nspec: {}\n' }, /^a\.yaml:2:7: YAML: /m],
  ['a value that is "}"', { 'a.yaml': 'kind: Offer\nname: o\nspec:\n  name: }\n' }, /^a\.yaml:4:9: YAML: /m],
  [
    'unknown kind',
    { 'a.yaml': 'kind: Widget\nname: w\nspec: {}\n' },
    /^a\.yaml:1:1: unknown kind "Widget" \(one of: .*Offer/m,
  ],
  ['missing kind', { 'a.yaml': 'name: w\nspec: {}\n' }, /^a\.yaml:1:1: missing kind/m],
  ['not a mapping', { 'a.yaml': '- 1\n- 2\n' }, /^a\.yaml:1:1: a document must be a mapping/m],
  [
    'unknown field',
    { 'a.yaml': offer('o', { project_id: 'p', nmae: 'x' }) },
    /^a\.yaml:5:3: spec\.nmae: unknown field \(did you mean name\?\)/m,
  ],
  [
    'wrong type',
    { 'a.yaml': offer('o', { project_id: 'p', applies_to_all: 'yes' }) },
    /^a\.yaml:5:3: spec\.applies_to_all: must be boolean/m,
  ],
  [
    'bad int64',
    { 'a.yaml': offer('o', { priority: 'high' }) },
    /^a\.yaml:4:3: spec\.priority: "high" is not an integer/m,
  ],
  [
    'bad timestamp',
    { 'a.yaml': 'kind: Event\nname: e\nid: e1\nspec:\n  start_time: tomorrow\n' },
    /^a\.yaml:5:3: spec\.start_time: "tomorrow" is not a valid date-time/m,
  ],
  [
    'bad enum spelling',
    { 'a.yaml': offer('o', { visibility: 'public' }) },
    /^a\.yaml:4:3: spec\.visibility: "public" is not an enum name \(upper case, e\.g\. VISIBILITY_PUBLISHED\)\n[^\n]*nothing was sent/,
  ],
  [
    'response-only field',
    { 'a.yaml': 'kind: RtmpIngest\nname: i\nid: i1\nspec:\n  key: abc\n' },
    /^a\.yaml:5:3: spec\.key: is a response-only field/m,
  ],
  [
    'response-only id in spec',
    { 'a.yaml': offer('o', { id: 'x' }) },
    /^a\.yaml:4:3: spec\.id: is a response-only field/m,
  ],
  [
    'missing identity (id) of a kind tapedeck cannot create',
    { 'a.yaml': 'kind: RtmpIngest\nname: v\nspec:\n  name: x\n' },
    /^a\.yaml:1:1: RtmpIngest needs id/m,
  ],
  [
    'missing identity (key)',
    { 'a.yaml': 'kind: Policy\nname: p\nspec:\n  policy: {}\n' },
    /^a\.yaml:3:1: spec: missing required field resource_key/m,
  ],
  [
    'a kind tapedeck cannot create, without id',
    { 'a.yaml': 'kind: Vod\nname: v\nspec:\n  name: x\n' },
    /^a\.yaml:1:1: Vod needs id .* \(tapedeck cannot create a Vod\)/m,
  ],
  [
    'duplicate names',
    { 'a.yaml': offer('same'), 'b/c.yaml': offer('same') },
    /^b\/c\.yaml:2:1: duplicate Offer\/same: also defined at a\.yaml:2/m,
  ],
  [
    'two documents for one resource',
    { 'a.yaml': 'kind: Vod\nname: a\nid: v1\nspec: {}\n---\nkind: Vod\nname: b\nid: v1\nspec: {}\n' },
    /^a\.yaml:7:1: Vod\/b manages the same Vod as Vod\/a/m,
  ],
  [
    'two defaults of a type in a project',
    {
      'a.yaml': ['x', 'y']
        .map(
          (n) =>
            `kind: StreamingConfiguration\nname: ${n}\nspec:\n  project_id: p\n  name: ${n}\n  type: CONFIGURATION_TYPE_AUTOMATED_TAGGING\n  default: true\n`,
        )
        .join('---\n'),
    },
    /^a\.yaml:15:3: a second default configuration of the same project and type .*StreamingConfiguration\/x at a\.yaml:2/m,
  ],
  [
    'action reference to a missing action',
    {
      'a.yaml':
        'kind: ActionConfiguration\nname: a\nspec:\n  annotation_type_id: t\n  configuration:\n    clip: { src: $nope.url }\n',
    },
    /^a\.yaml:6:5: action clip refers to \$nope/m,
  ],
  [
    'action reference cycle',
    {
      'a.yaml':
        'kind: ActionConfiguration\nname: a\nspec:\n  annotation_type_id: t\n  configuration:\n    a: { x: $b.o }\n    b: { y: $a.o }\n',
    },
    /^a\.yaml:6:5: actions form a reference cycle: a -> b -> a/m,
  ],
  [
    'unresolvable reference',
    { 'a.yaml': offer('o', { project_id: 'p', target: { event_ids: ['${Event/ghost.id}'] } }) },
    /^a\.yaml:5:\d+: \$\{Event\/ghost\.id\} refers to Event\/ghost, which no document defines/m,
  ],
  [
    'reference cycle',
    {
      'a.yaml': `${offer('a', { project_id: 'p', billing_partner_offer_id: '${Offer/b.id}' })}---\n${offer('b', { project_id: 'p', billing_partner_offer_id: '${Offer/a.id}' })}`,
    },
    /reference cycle: Offer\/a -> Offer\/b -> Offer\/a/,
  ],
  [
    'undefined variable',
    { 'a.yaml': offer('o', { project_id: '${var.project}' }) },
    /^a\.yaml:4:3: undefined variable \$\{var\.project\}/m,
  ],
  [
    'unset environment variable',
    { 'a.yaml': offer('o', { project_id: '${env.UNSET_FOR_TAPEDECK_TEST}' }) },
    /^a\.yaml:4:3: environment variable UNSET_FOR_TAPEDECK_TEST is not set/m,
  ],
  [
    'duplicate keys',
    { 'a.yaml': 'kind: Offer\nkind: Offer\nname: o\nspec: {}\n' },
    /^a\.yaml:2:1: YAML: Map keys must be unique/m,
  ],
  [
    'alias bomb',
    {
      'a.yaml': `a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`,
    },
    /^a\.yaml:1:1: YAML: Excessive alias count/m,
  ],
  [
    'id with a path separator',
    { 'a.yaml': 'kind: Vod\nname: v\nid: ../admin\nspec: {}\n' },
    /^a\.yaml:3:1: id: "\.\.\/admin" is not a valid id/m,
  ],
];

describe('tapedeck validate', () => {
  it.each(cases)('%s', async (_, files, message) => {
    const dir = testdir(files);
    const run = await runCli(['validate', dir], { cwd: dir, env: { TAPEDECK_BASE_URL: 'http://127.0.0.1:9' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/error(s)?; nothing was sent\.\n$/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
  });

  it('reports every problem at once', async () => {
    const dir = testdir({
      'a.yaml': offer('a', { nope: 1 }),
      'b.yaml': 'kind: Widget\nname: w\n',
      'c.yaml': offer('c', { priority: 'x' }),
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.stderr.trim().split('\n')).toHaveLength(4);
    expect(run.stderr).toContain('3 errors; nothing was sent.');
  });

  it('warns on an unknown value of a known enum, and passes', async () => {
    const dir = testdir({ 'a.yaml': offer('a', { project_id: 'p', visibility: 'VISIBILITY_SECRET' }) });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^a\.yaml:5:3: warning: spec\.visibility: VISIBILITY_SECRET is not a known value/);
    expect(run.stdout).toBe('1 document valid.\n');
  });

  it('accepts any upper-case name where no value is published', async () => {
    const dir = testdir({
      'a.yaml': offer('a', { project_id: 'p', offer_prices: [{ access_period: 'ACCESS_PERIOD_YEARLY' }] }),
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it('skips tapedeck.yaml, hidden folders and node_modules; reads .yml and multi-document files', async () => {
    const dir = testdir({
      'tapedeck.yaml': 'version: 1\n',
      '.hidden/x.yaml': 'kind: Widget',
      'node_modules/x.yaml': 'kind: Widget',
      'a.yml': `${offer('a')}---\n${offer('b')}`,
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.stdout).toBe('2 documents valid.\n');
  });

  it('files with Windows line ends and a byte-order mark read the same', async () => {
    const dir = testdir({ 'a.yaml': `\uFEFF${offer('a').replace(/\n/g, '\r\n')}` });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stdout: '1 document valid.\n' });
  });

  it('an empty directory is an error', async () => {
    const dir = testdir({});
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no documents found/);
  });

  it('non-UTF-8 bytes are a located error', async () => {
    const dir = testdir({ 'a.yaml': 'kind: Offer\nname: \xff\n' });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/a.yaml`, Buffer.from([0x6b, 0x3a, 0x20, 0xff, 0xfe, 0x0a]));
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.stderr).toMatch(/^a\.yaml:1:1: file is not valid UTF-8/m);
  });
});
