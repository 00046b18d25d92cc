// The quick YAML reader must agree with the `yaml` library on values and document indexes wherever it answers, and refuse
// (so `yaml` reads the file) wherever it does not know the construct: then a document's value never depends on which
// reader ran, so on the rest of its file. Thousands of generated files (test/helpers/yaml-gen.ts) check that.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Issue } from '../../src/types.js';
import { stringify } from 'yaml';
import { seededRandom } from '../../src/emulator/server.js';
import { parseQuick } from '../../src/load/quick-yaml.js';
import { parseFile } from '../../src/load/load.js';
import { nearestPos } from '../../src/validate/locate.js';
import { yamlGenerator } from '../helpers/yaml-gen.js';
import { quick, full } from '../helpers/yaml-readers.js';
import { rulesText } from '../../bench/rules.js';

const root = resolve(import.meta.dirname, '../..');

/** Of `texts`, those the quick reader answers; every one of them must read as `yaml` reads it. */
function answered(texts: string[]) {
  const known = texts.filter((text) => quick(text) !== 'refused');
  expect(known.map(quick)).toEqual(known.map(full));
  return known;
}

const yamlFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const full = join(dir, f);
    if (f === 'node_modules' || f.startsWith('.')) return [];
    return statSync(full).isDirectory() ? yamlFiles(full) : /\.ya?ml$/.test(f) ? [full] : [];
  });

describe('quick YAML reader', () => {
  // The example rules are not documents, and their CEL is written as block scalars, which the quick reader leaves
  // to `yaml` (a rules file is read once per run).
  it.each(
    yamlFiles(join(root, 'examples'))
      .filter((f) => !f.includes('/ci/') && !f.includes('/rules/'))
      .map((f) => [f.slice(root.length + 1)]),
  )('agrees on %s', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    expect(quick(text), text).toEqual(full(text));
  });

  it.each([
    [
      'block map and sequences',
      'kind: Offer\nname: o\nspec:\n  a: 1\n  list:\n    - x\n    - y: 2\n      z: [1, "two", three]\n  seq_same_indent:\n  - 1\n  - -2.5\n',
    ],
    [
      'scalars of the core schema',
      'a: ~\nb: null\nc: true\nd: False\ne: 0o17\nf: 0x1F\ng: 1e3\nh: .5\ni: -.inf\nj: 010\nk: "2026-01-01T10:00:00Z"\nl: 2026-01-01T10:00:00Z\nm: yes\nn: \'it\'\'s\'\no: "tab\\there \\u00e9"\n',
    ],
    ['comments everywhere', '# head\na: 1 # trailing\n# between\nb:   # nothing\nc: "x # not a comment"\nd: x#y\n'],
    ['flow collections', 'a: { x: 1, "y": [a, b, c], z: }\nb: []\nc: {}\nd: [ "a, b", \'c]\' ]\ne: {f: {g: h}}\n'],
    ['several documents', '---\na: 1\n---\n# only a comment\n---\n- 1\n- 2\n'],
    ['nested sequences', 'a:\n  - - 1\n    - 2\n  -\n    b: 1\n  - - x\n'],
    ['a plain scalar over two lines', 'a: one\n  two\n'],
    ['a flow collection over two lines', 'a: [1,\n  2]\n'],
    ['numeric keys', '1: a\n0x1F: b\n'],
    ['numbers as `yaml` reads them, not js-yaml', 'a: [-.5, 0b11, -0x1f, +0o7, 1_000, +.5, 012]\n'],
    ['a root scalar', 'just text\n'],
    ['references and placeholders', 'x: ${var.project}\ny: "%@: final"\nz: $clip.url\n'],
  ])('%s', (_, text) => expect(quick(text)).toEqual(full(text)));

  it.each([
    ['anchors and aliases', 'a: &x 1\nb: *x\n'],
    ['tags', 'a: !!str 1\n'],
    ['block scalars', 'a: |\n  text\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['a value with ": "', 'a: b: c\n'],
    ['tabs', 'a:\n\tb: 1\n'],
    ['a null key (`yaml` makes "" of it)', 'null: a\n'],
    ['a flow collection after a comma (it may be a key)', 'a: { x: 1, [b]: 2 }\n'],
    ['a comment glued to a quoted scalar (`yaml` refuses it)', 'a: "b"#c\n'],
    ['merge keys', 'a:\n  <<: {b: 1}\n'],
    ['an empty item', 'a:\n  -\n  - 1\n'],
    ['an empty item at the end', 'a:\n  - 1\n  - # empty\n'],
    ['an empty item in an item', 'a:\n  - -\n  - 1\n'],
    ['Windows line ends', 'a: 1\r\nb: 2\r\n'],
    ['a block scalar in a workflow file', readFileSync(join(root, 'examples/ci/github-actions.yml'), 'utf8')],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['an integer beyond 2^53', 'a: 9007199254740993\n'],
    ['an escape beyond U+10FFFF (`yaml` reports it)', 'a: "\\U0011FFFF"\n'],
    ['an escape of half a surrogate pair (load.ts reports a lone one)', 'a: "\\uD83D\\uDE00"\n'],
    ['a hexadecimal integer beyond 2^53', 'a: [0x20000000000001]\n'],
    ['an integer past the largest double', `a: ${'9'.repeat(400)}\n`],
    ['a key over 1000 characters (`yaml` refuses one over 1024)', `${'k'.repeat(1020)}: 1\n`],
  ])('refuses %s', (_, text) => expect(quick(text)).toBe('refused'));

  it("reads a rules file as the bench writes it: CEL's `!` and `?` inside quoted scalars are text to both readers", () => {
    const text = rulesText();
    expect(text).toMatch(/ !has/);
    expect(quick(text)).not.toBe('refused');
    expect(quick(text)).toEqual(full(text));
  });

  it.each([
    ['kind: Vod\nname: a\nspec:\n  name: plain\n', [true]],
    ['kind: Vod\nname: a\nspec:\n  name: ${var.label}\n', [false]],
    ['a: 1\n---\nb: "${Vod/x.id}"\n---\nc: 3 # ${not.this}\n', [true, false, false]],
    ['# ${only a comment}\na: 1\n', [true]],
    ['a: "\\x24{var.label}"\n', [false]],
  ])(
    'tells which documents hold no ${ (variables and references are looked for only in the others): %j',
    (text, expected) => {
      expect(parseQuick(text).map((d) => 'value' in d && d.noPlaceholders)).toEqual(expected);
    },
  );

  it('agrees on 300 documents written by `yaml` (as the bench and the tests write them)', () => {
    const random = seededRandom(5);
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
    const scalar = () =>
      pick<unknown>([
        1,
        -2,
        3.25,
        0,
        true,
        false,
        null,
        'plain',
        'with space',
        'a: b',
        '#hash',
        'x #y',
        "it's",
        'quote"d',
        '',
        '10',
        'true',
        'null',
        '-',
        '- x',
        '[x]',
        '{y}',
        'é ü',
        '2026-01-01T00:00:00Z',
        '${var.x}',
        '%@ copy',
        '$a.b',
        'line\nbreak',
        'trailing ',
        ' leading',
      ]);
    const value = (depth: number): unknown => {
      if (depth > 3 || random() < 0.4) return scalar();
      if (random() < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, (_, i) => [
          pick(['a', 'b_c', 'key', 'x-y', 'sp ace', 'k']) + i,
          value(depth + 1),
        ]),
      );
    };
    const texts = Array.from({ length: 300 }, (_, n) => {
      const doc = { kind: 'Offer', name: `o${n}`, spec: value(0) };
      return stringify(doc, { flowCollectionPadding: random() < 0.5, indentSeq: random() < 0.5 });
    });
    expect(answered(texts).length).toBeGreaterThan(200);
  });

  it.each([
    ['mostly the subset the quick reader knows', { plain: true }, 1, 2000],
    ['every part of YAML', { plain: false }, 2, 1500],
  ])('agrees on generated files: %s', (_, options, seed, count) => {
    const generate = yamlGenerator(seed, options);
    const texts = Array.from({ length: count }, () => generate.file().text);
    // Enough of them are read by the quick reader for the comparison to mean something.
    expect(answered(texts).length).toBeGreaterThan(count / (options.plain ? 4 : 20));
  });
});

describe('a document read in its file', () => {
  const read = (text: string) => {
    const issues: Issue[] = [];
    const values = parseFile(text, 'f.yaml', issues).map((d) => d.value);
    return { values, issues: issues.map((i) => i.message) };
  };

  it('is the flow map {a:1} (the key "a:1") whether or not another document of the file has a block scalar', () => {
    const alone = read('kind: Offer\nspec: {a:1}\n');
    expect(alone).toEqual({ values: [{ kind: 'Offer', spec: { 'a:1': null } }], issues: [] });
    expect(read('kind: Offer\nspec: {a:1}\n---\nkind: Vod\nspec:\n  text: |\n    two\n    lines\n').values[0]).toEqual(
      alone.values[0],
    );
  });

  it("leaves only a broken or unusual document to `yaml`, read from its own text, its errors and positions on the file's lines", () => {
    const good = (i: number) => `kind: Vod\nname: v${i}\nspec:\n  name: V${i}\n`;
    const parts = [
      good(0),
      good(1),
      'kind: Vod\nname: "v2\nspec: {}\n',
      good(3),
      'kind: Vod\nname: v4\nspec:\n  name: |\n    V4\n',
      good(5),
    ];
    const issues: Issue[] = [];
    const docs = parseFile(parts.join('---\n'), 'f.yaml', issues);
    expect(docs.map((d) => [d.index, (d.value as { name: string }).name])).toEqual([
      [0, 'v0'],
      [1, 'v1'],
      [3, 'v3'],
      [4, 'v4'],
      [5, 'v5'],
    ]);
    // The block scalar's document is the only one `yaml` read (it comes with its positions); the others are the quick
    // reader's, each located from its own text when asked.
    expect(docs.map((d) => d.positions !== undefined)).toEqual([false, false, false, true, false]);
    expect(docs[3].positions?.get('/spec/name')).toEqual({ line: 23, col: 3 });
    expect(nearestPos(docs[4], '/spec/name')).toEqual({ line: 29, col: 3 });
    expect(issues.map((i) => [i.pos?.line, i.message])).toEqual([[14, 'YAML: Missing closing "quote']]);
  });

  it('keeps an integer beyond 2^53 as its exact text, and says where (aliases too)', () => {
    const docs = parseFile(
      'a: 9007199254740993\nb: [-9223372036854775808, 1, 0x20000000000001]\nc: &x 18446744073709551615\nd: *x\ne: 9007199254740993.0\n',
      'f.yaml',
      [],
    );
    expect(docs.map((d) => [d.value, d.wideIntegers])).toEqual([
      [
        {
          a: '9007199254740993',
          b: ['-9223372036854775808', 1, '9007199254740993'],
          c: '18446744073709551615',
          d: '18446744073709551615',
          e: 9007199254740992,
        },
        ['/a', '/b/0', '/b/2', '/c', '/d'],
      ],
    ]);
  });

  it('gives each document of a file its own positions, from one locator for the file (only when asked)', () => {
    const text =
      'kind: Vod\nname: a\n---\n# a comment\n\nkind: Vod\nname: b\nspec:\n  name: B\n---\nkind: Banner\nname: c\nspec:\n  items:\n    - x\n    - y\n';
    const docs = parseFile(text, 'f.yaml', []);
    expect(docs.map((d) => d.index)).toEqual([0, 1, 2]);
    // The quick reader keeps no positions; one function per file works them out by document index.
    expect(docs.every((d) => d.positions === undefined && d.locate === docs[0].locate)).toBe(true);
    const at = (i: number, pointer: string) => nearestPos(docs[i], pointer);
    expect([
      at(0, '/name'),
      at(1, '/name'),
      at(1, '/spec/name'),
      at(2, '/spec/items/1'),
      at(2, '/spec/items/1/nothing'),
    ]).toEqual([
      { line: 2, col: 1 },
      { line: 7, col: 1 },
      { line: 9, col: 3 },
      { line: 16, col: 7 },
      { line: 16, col: 7 },
    ]);
  });

  it.each([
    [3, true],
    [4, false],
  ])('reads as it does alone, in generated files (seed %i, plain %s)', (seed, plain) => {
    const generate = yamlGenerator(seed, { plain });
    const files = Array.from({ length: 500 }, () => {
      const { text, parts } = generate.file();
      return { text, inFile: read(text), alone: parts.map(read) };
    });
    // A file is refused when a part of it is: a problem in one document is no problem for the others.
    expect(files.map((f) => [f.text, f.inFile.issues.length > 0])).toEqual(
      files.map((f) => [f.text, f.alone.some((a) => a.issues.length > 0)]),
    );
    const clean = files.filter((f) => !f.inFile.issues.length);
    expect(clean.map((f) => [f.text, f.inFile.values])).toEqual(
      clean.map((f) => [f.text, f.alone.flatMap((a) => a.values)]),
    );
    expect(clean.length).toBeGreaterThan(150);
  });
});
