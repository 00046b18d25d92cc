// The error codes are contract (docs/errors.md): each code unique, well-formed, and listed in the document with the
// meaning the module gives it, so the list cannot drift from what tapedeck prints.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_CODES, errorJson, TapedeckError } from '../../src/errors.js';

const doc = readFileSync(join(import.meta.dirname, '../../docs/errors.md'), 'utf8');
/** The rows of the table in docs/errors.md, as [code, meaning]. */
const rows = [...doc.matchAll(/^\| `([A-Z_]+)` \| (.*) \|$/gm)].map((m) => [m[1], m[2].replace(/\\\|/g, '|')]);

describe('error codes', () => {
  it("docs/errors.md lists every code once, with the module's meaning, in its order", () => {
    expect(rows).toEqual(Object.entries(ERROR_CODES));
    expect(new Set(rows.map(([c]) => c)).size).toBe(rows.length);
  });

  it('every code is E_ and upper-case words', () => {
    for (const code of Object.keys(ERROR_CODES)) expect(code).toMatch(/^E_[A-Z]+(_[A-Z]+)*$/);
  });

  it.each([
    [401, 'unauthenticated', 'E_AUTH'],
    [403, 'permission_denied', 'E_AUTH'],
    [404, 'not_found', 'E_NOT_FOUND'],
    [409, 'already_exists', 'E_API'],
    [500, 'internal', 'E_API'],
    [0, 'timeout', 'E_NETWORK'],
    [0, 'connection_failed', 'E_NETWORK'],
    [0, 'deadline_exceeded', 'E_DEADLINE'],
  ])('an HTTP failure %i %s is %s', (status, reason, code) => {
    expect(new ApiError('GET', '/x', status, reason, 'm').code).toBe(code);
  });

  it('JSON carries the code, the message apart from its place, the place and the hint', () => {
    const e = new TapedeckError('bad', { code: 'E_VALIDATION', where: 'a.yaml:1:2', hint: 'fix it' });
    expect(e.line()).toBe('a.yaml:1:2: bad (fix it)');
    expect(errorJson(e)).toEqual({ code: 'E_VALIDATION', message: 'bad', location: 'a.yaml:1:2', hint: 'fix it' });
    expect(errorJson(new Error('oops'))).toEqual({ code: 'E_INTERNAL', message: 'oops' });
  });
});
