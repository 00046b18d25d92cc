// Fuzzing the loader and the validator with hostile inputs: random bytes, deep nesting, huge scalars, odd unicode,
// byte order marks, NULs, tags, anchors and aliases, documents of the wrong shape, and random mutations of valid
// documents. Whatever the input, it must end in located errors (file, line and column, one line each) or in valid
// documents whose values are plain JSON (what is sent); never an exception. A fixed seed and a fixed number of
// inputs bound it, never a clock. A few inputs also go through the real CLI, which must exit 0 or 1.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/emulator/server.js';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { parseBytes } from '../../src/load/load.js';
import { interpolateSources } from '../../src/resolve/interpolate.js';
import { checkReferences } from '../../src/resolve/refs.js';
import type { Issue } from '../../src/types.js';
import { validateDocuments } from '../../src/validate/validate.js';
import { runCli, testdir } from '../helpers/cli.js';
import { yamlGenerator } from '../helpers/yaml-gen.js';

const examples = resolve(import.meta.dirname, '../../examples');
/** Valid documents to mutate: the examples, as a user writes them. */
const valid = ['basic', 'multi-env'].flatMap((d) =>
  readdirSync(join(examples, d))
    .filter((f) => f !== 'tapedeck.yaml')
    .flatMap((f) => readFileSync(join(examples, d, f), 'utf8').split(/^---\n/m)),
);

const random = seededRandom(20260115);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
const gen = yamlGenerator(7);

const ODD_TEXT = [
  '\u0000',
  '\uFEFF',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u202E',
  '\u200D',
  '\uD83D\uDE00',
  'e\u0301',
  '\uFF1A',
  '\u00A0',
  '\t',
  '\r',
  '\r\n',
  '\x1b[31m',
  '\\',
  '"',
  "'",
  '\u{10FFFF}',
];
const YAML_BITS = [
  ': ',
  '- ',
  '? ',
  '{',
  '}',
  '[',
  ']',
  ',',
  '&a ',
  '*a',
  '!',
  '!!str ',
  '!!int ',
  '!foo ',
  '|',
  '>',
  '#',
  '%',
  '@',
  '`',
  '---\n',
  '...\n',
  '\n',
  '  ',
  '<<: ',
  '${var.x}',
  '${Offer/o.id}',
  '$${',
  '9223372036854775808',
  '9007199254740993',
  '-0',
  '.nan',
  '.inf',
  '1e400',
  '0x',
  '~',
  'null',
  '{}',
  '[]',
  '"\\ud800"',
  '"\\x00"',
];
const KINDS = defaultRegistry.names();

/** A value of any JSON shape, as YAML flow text. */
function value(depth: number): string {
  const r = random();
  if (depth > 3 || r < 0.4)
    return pick([
      '1',
      '-2.5',
      'true',
      'null',
      '""',
      'x',
      '"y z"',
      '9007199254740993',
      '1e21',
      '.nan',
      '-.inf',
      '2026-01-01T00:00:00Z',
      '2026-01-01 00:00:00Z',
      'E_UNSPECIFIED',
      '${var.v}',
      '${Event/e.id}',
      pick(ODD_TEXT).replace(/\\/g, '\\\\') + 's',
    ]);
  if (r < 0.7) return `[${Array.from({ length: int(4) }, () => value(depth + 1)).join(', ')}]`;
  return `{${Array.from({ length: int(4) }, (_, i) => `${pick(['name', 'priority', 'id', 'start_time', 'physical_location', 'target', 'configuration', 'fields', 'offer_prices', 'k'])}${i ? i : ''}: ${value(depth + 1)}`).join(', ')}}`;
}

/** One hostile input: a name saying how it was made, and its bytes or text. */
function hostile(n: number): { how: string; input: Uint8Array | string } {
  // One input in a hundred is huge: they cost the parser most, and a few show as much as many.
  switch (n % 100 === 2 ? 'huge' : n % 10) {
    case 0:
      return { how: 'random bytes', input: Uint8Array.from({ length: int(300) }, () => int(256)) };
    case 1: {
      const depth = 90 + int(30);
      const [open, close] = pick([
        ['[', ']'],
        ['{a: ', '}'],
        ['- ', ''],
        ['[{a: ', '}]'],
      ]);
      return {
        how: 'deep nesting',
        input: `kind: Offer\nname: o\nspec:\n  x: ${open.repeat(depth)}1${close.repeat(depth)}\n`,
      };
    }
    case 'huge': {
      // Up to a megabyte; text that nests (`a: a: ...`, `- - ...`) costs the parser more, so less of it.
      const [unit, most] = pick([
        ['x', 1_000_000],
        ['9', 100_000],
        ['é', 100_000],
        ['\u{1F600}', 100_000],
        ['a: ', 10_000],
        ['- ', 10_000],
      ] as const);
      const big = unit.repeat(most / 2 + int(most / 2));
      return {
        how: 'a huge scalar',
        input: pick([
          `kind: Offer\nname: o\nspec:\n  name: "${big}"\n`,
          `kind: Offer\nname: o\nspec:\n  priority: ${big}\n`,
          `kind: Offer\nname: ${big}\nspec: {}\n`,
          `${big}: 1\n`,
        ]),
      };
    }
    case 2:
    case 3: {
      const odd = () => Array.from({ length: 1 + int(3) }, () => pick(ODD_TEXT)).join('');
      return {
        how: 'odd unicode',
        input: `kind: ${pick(KINDS)}\nname: n${odd()}\nid: "i${odd().replace(/[\\"]/g, '')}"\nspec:\n  name: "${odd().replace(/[\\"]/g, '')}"\n  ${odd()}k: v\n`,
      };
    }
    case 4: {
      const text = pick(valid);
      const at = int(text.length);
      return {
        how: 'BOMs and NULs',
        input: `${pick(['\uFEFF', '\uFEFF\uFEFF', ''])}${text.slice(0, at)}${pick(['\uFEFF', '\u0000', '\u0000\u0000', '\uFFFE'])}${text.slice(at)}`,
      };
    }
    case 5:
      return { how: 'generated YAML with tags, anchors and aliases', input: gen.file().text };
    case 6:
      return {
        how: 'a document of the wrong shape',
        input: pick([
          `kind: ${pick(KINDS)}\nname: n${n}\nid: i${n}\nspec: ${value(0)}\n`,
          `${value(0)}\n`,
          `kind: ${value(2)}\nname: ${value(2)}\nspec: {}\n`,
          `kind: ${pick(KINDS)}\nname: n\n${pick(['id', 'moved_from', 'duplicate_from', 'spec', 'extra'])}: ${value(0)}\n`,
        ]),
      };
    default: {
      // Mutations of a valid document: characters and YAML fragments put in, taken out, or lines moved.
      let text = pick(valid);
      for (let i = 0, edits = 1 + int(4); i < edits; i++) {
        const at = int(text.length + 1);
        const lines = text.split('\n');
        switch (int(4)) {
          case 0:
            text = text.slice(0, at) + pick([...YAML_BITS, ...ODD_TEXT]) + text.slice(at);
            break;
          case 1:
            text = text.slice(0, at) + text.slice(at + 1 + int(8));
            break;
          case 2:
            lines.splice(int(lines.length), 0, lines[int(lines.length)]);
            text = lines.join('\n');
            break;
          default: {
            const l = int(lines.length);
            lines[l] = ' '.repeat(int(5)) + lines[l].trimStart();
            text = lines.join('\n');
          }
        }
      }
      return { how: 'a mutated valid document', input: text };
    }
  }
}

/** What is wrong with how the loader and the validator ended on `input`, or nothing. */
function verdict(input: Uint8Array | string): string[] {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const issues: Issue[] = [];
  try {
    const sources = parseBytes(bytes, 'f.yaml', issues);
    issues.push(...interpolateSources(sources, { vars: { x: 'x', v: '9007199254740993' }, env: {} }));
    const { docs, issues: more } = validateDocuments(sources, defaultRegistry);
    issues.push(...more);
    if (!issues.some((i) => i.severity === 'error')) issues.push(...checkReferences(docs));
    const problems = issues
      .filter((i) => !(i.pos && i.pos.line >= 1 && i.pos.col >= 1) || /[\n\r\u2028\u2029]/.test(i.message))
      .map((i) => `not located or not one line: ${JSON.stringify(i)}`);
    if (issues.some((i) => i.severity === 'error')) return problems;
    // What is sent is JSON: a value that does not survive JSON unchanged (NaN, a Date, a BigInt) would go out wrong.
    return [
      ...problems,
      ...docs
        .filter((d) => !isDeepStrictEqual(JSON.parse(JSON.stringify(d.spec)), d.spec))
        .map((d) => `not plain JSON: ${d.address}`),
    ];
  } catch (e) {
    return [`threw ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ')}`];
  }
}

describe('the loader and the validator on hostile input', () => {
  const cases = Array.from({ length: 1200 }, (_, n) => hostile(n));

  it('end every input in located errors or valid documents, never an exception', () => {
    const failures = cases.flatMap(({ how, input }, n) =>
      verdict(input).map(
        (p) =>
          `#${n} (${how}): ${p}\n  input: ${JSON.stringify(typeof input === 'string' ? input.slice(0, 300) : Buffer.from(input).toString('base64'))}`,
      ),
    );
    expect(failures).toEqual([]);
    // The inputs are hostile enough to be refused mostly, and varied enough that some still pass.
    expect(cases.map((c) => c.how).filter((h, i, all) => all.indexOf(h) === i)).toHaveLength(8);
  });

  it('through the real CLI: exit 0 or 1, every error line located, no stack trace', async () => {
    const dir = testdir({});
    const runs = [];
    for (const [n, { input }] of cases.entries()) {
      if (n % 60 !== 0) continue;
      writeFileSync(join(dir, 'f.yaml'), input);
      const run = await runCli(['validate', '.', '--var', 'x=1', '--var', 'v=2'], { cwd: dir });
      const unlocated = run.stderr
        .split('\n')
        .filter((l) => l && !/^f\.yaml:\d+:\d+: |^\d+ errors?; nothing was sent\.$|^error: no documents found/.test(l));
      runs.push({ n, code: run.code === 0 || run.code === 1, unlocated });
    }
    expect(runs).toEqual(runs.map(({ n }) => ({ n, code: true, unlocated: [] })));
  });
});
