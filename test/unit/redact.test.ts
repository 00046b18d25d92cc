// Secrets masks a secret in every spelling an output or a server may write it in.
import { expect, it } from 'vitest';
import { jsonText, printable } from '../../src/schema/values.js';
import { oneLine, REDACTED, Secrets } from '../../src/util/redact.js';

const SECRET = 'pa\u2028ss"w\u0007rd-42';

it.each([
  ['as it is', SECRET],
  ['upper case', SECRET.toUpperCase()],
  ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
  ['URL-encoded', encodeURIComponent(SECRET)],
  ['on one line (oneLine)', oneLine(SECRET)],
  ['printable', printable(SECRET)],
  ['in a JSON output (jsonText)', jsonText(SECRET).trim().slice(1, -1)],
  ['base64', Buffer.from(SECRET).toString('base64')],
])('a secret is masked %s', (_, spelt) => {
  const secrets = new Secrets().add(SECRET);
  expect(secrets.mask(`before ${spelt} after`)).toBe(`before ${REDACTED} after`);
});

it.each([
  ['a value under 4 characters is not masked (it would hide ordinary words)', 'abc', 'abc abcd', 'abc abcd'],
  ['a 4-character value is', 'abcd', 'abc abcd', `abc ${REDACTED}`],
])('%s', (_, secret, text, masked) => {
  expect(new Secrets().add(secret).mask(text)).toBe(masked);
});
