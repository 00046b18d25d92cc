// The database tests' server (test/helpers/postgres.ts) starts from a private temporary directory (0700, as
// `mktemp -d` makes it) and from a checkout inside one (its binaries out of nobody's reach), as root too, and a file
// whose server cannot start fails under CI=true instead of skipping.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mirrorTree, nativeDir } from '../helpers/postgres-binaries.js';
import { startPostgres, whenUnavailable, type Started } from '../helpers/postgres.js';
import { removeTempDir, tempDir } from '../helpers/tmp.js';

const as = process.getuid?.() === 0 ? 'root' : 'a user';

async function answers(server: Started): Promise<void> {
  expect(server.ok ? 'started' : server.reason).toBe('started');
  if (!server.ok) return;
  try {
    expect(await server.pg.sql('SELECT 41 + 1 AS n')).toEqual([{ n: 42 }]);
  } finally {
    await server.pg.stop();
  }
}

describe('the test PostgreSQL server', () => {
  const saved = process.env.TMPDIR;
  const privateTmp = mkdtempSync(join(tmpdir(), 'tapedeck-private-'));
  afterAll(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    removeTempDir(privateTmp);
  });

  it(`starts with TMPDIR a private directory (0700), as ${as}, and answers`, async () => {
    expect(statSync(privateTmp).mode & 0o777).toBe(0o700);
    process.env.TMPDIR = privateTmp;
    expect(tmpdir()).toBe(privateTmp);
    await answers(await startPostgres());
  });

  it(`starts from a checkout inside a private directory (0700, as under /root or mktemp -d), as ${as}, and answers`, async () => {
    // The package as `npm ci` leaves it in such a checkout: its versioned libraries, no links, below a 0700 parent.
    const checkout = tempDir('tapedeck-private-clone-');
    expect(statSync(checkout).mode & 0o777).toBe(0o700);
    const native = nativeDir();
    const copy = join(checkout, 'node_modules/pkg/native');
    mirrorTree(dirname(native), dirname(copy));
    await answers(await startPostgres({ native: copy }));
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
