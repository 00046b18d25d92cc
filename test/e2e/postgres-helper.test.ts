// The database tests' server (test/helpers/postgres.ts) starts from a private temporary directory (0700, as
// `mktemp -d` makes it) as root too, and a file whose server cannot start fails under CI=true instead of skipping.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgres, whenUnavailable } from '../helpers/postgres.js';
import { removeTempDir } from '../helpers/tmp.js';

describe('the test PostgreSQL server', () => {
  const saved = process.env.TMPDIR;
  const privateTmp = mkdtempSync(join(tmpdir(), 'tapedeck-private-'));
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    removeTempDir(privateTmp);
  });

  it(`starts with TMPDIR a private directory (0700), as ${process.getuid?.() === 0 ? 'root' : 'a user'}, and answers`, async () => {
    expect(statSync(privateTmp).mode & 0o777).toBe(0o700);
    process.env.TMPDIR = privateTmp;
    expect(tmpdir()).toBe(privateTmp);
    const server = await startPostgres();
    expect(server.ok ? 'started' : server.reason).toBe('started');
    if (!server.ok) return;
    try {
      expect(await server.pg.sql('SELECT 41 + 1 AS n')).toEqual([{ n: 42 }]);
    } finally {
      await server.pg.stop();
    }
  });

  it.each([
    [{ CI: 'true' }, true],
    [{ CI: 'false' }, false],
    [{}, false],
  ])('a server that cannot start, with %j: fails the file: %s', (env, fail) => {
    const r = whenUnavailable('PostgreSQL state tests', 'no binaries', env);
    expect(r.fail).toBe(fail);
    expect(r.title).toContain('no binaries');
  });
});
