// Secrets masks a secret in every spelling an output or a server may write it in.
import { expect, it } from 'vitest';
import { jsonText, printable } from '../../src/schema/values.js';
import { cellCode, escapeData, htmlText, markdownEscaped, markdownText, oneLine } from '../../src/util/escape.js';
import { REDACTED, Secrets } from '../../src/util/redact.js';

const SECRET = 'pa\u2028ss"w\u0007r|d<_%-42';

it.each([
  ['as it is', SECRET],
  ['upper case', SECRET.toUpperCase()],
  ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
  ['URL-encoded', encodeURIComponent(SECRET)],
  ['on one line (oneLine)', oneLine(SECRET)],
  ['printable', printable(SECRET)],
  ['in a JSON output (jsonText)', jsonText(SECRET).trim().slice(1, -1)],
  ['base64', Buffer.from(SECRET).toString('base64')],
  ['in Markdown text (issues)', markdownText(SECRET)],
  ["in Markdown text (a plan's comment)", markdownEscaped(htmlText(SECRET))],
  ["in a table cell's code span", cellCode(oneLine(SECRET))],
  ['in a GitHub annotation', escapeData(oneLine(SECRET))],
])('a secret is masked %s', (_, spelt) => {
  const secrets = new Secrets().add(SECRET);
  const masked = secrets.mask(`before ${spelt} after`);
  // base64 keeps its edges, which depend on the bytes around the secret as much as on it
  expect(masked).toMatch(new RegExp(`^before \\S{0,4}\\[redacted\\]\\S{0,4} after$`));
});

it.each([
  ['a value under 4 characters is not masked (it would hide ordinary words)', 'abc', 'abc abcd', 'abc abcd'],
  ['a 4-character value is', 'abcd', 'abc abcd', `abc ${REDACTED}`],
])('%s', (_, secret, text, masked) => {
  expect(new Secrets().add(secret).mask(text)).toBe(masked);
});
