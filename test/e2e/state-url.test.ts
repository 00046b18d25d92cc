// A state location that looks like a database URL but is not a valid postgres:// or postgresql:// one is an error
// naming the problem, from wherever it comes (--state, TAPEDECK_STATE_URL, tapedeck.yaml's state:): never taken as
// a file path (which would plan against an empty state, print the URL with its password, and write a file).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { secretsInUrl } from '../../src/state/postgres-url.js';
import { namedState } from '../../src/run/state-location.js';

const SECRET = 'hunter2-Secret';
const offer = { kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } };
let emu: Emulator;
afterAll(() => emu?.close());

/** Every file below dir (the state must not have been written anywhere there). */
const files = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

const cases: [string, string, RegExp][] = [
  [
    'postgres:/db.example.com/infra',
    'postgres:',
    /postgres: must be followed by \/\/ and the host \(postgres:\/\/user@host:5432\/database\)/,
  ],
  [`postgresql:ci:${SECRET}@db.example.com/infra`, 'postgresql:', /postgresql: must be followed by \/\/ and the host/],
  [
    `pgsql://ci:${SECRET}@db.example.com/infra`,
    'pgsql:',
    /pgsql:\/\/ is not a PostgreSQL URL scheme: write postgres:\/\/ or postgresql:\/\//,
  ],
  [`postgress://ci:${SECRET}@db.example.com/infra`, 'postgress:', /postgress:\/\/ is not a PostgreSQL URL scheme/],
  [`mysql://ci:${SECRET}@db/infra`, 'mysql:', /mysql:\/\/ is not a PostgreSQL URL scheme/],
  [
    `ci:${SECRET}@db.example.com:5432/infra`,
    'user:password@',
    /looks like a database URL without its scheme: write postgres:\/\/ before it/,
  ],
];

describe('a mistyped state URL', () => {
  it.each(cases)(
    '--state %s: an error naming the problem, no file written, the password not printed',
    async (url, _what, problem) => {
      emu ??= await emulator();
      const dir = testdir({ 'a.yaml': [offer] });
      const before = files(dir);
      for (const [args, env, from] of [
        [['--state', url], {}, '--state'],
        [[], { TAPEDECK_STATE_URL: url }, 'TAPEDECK_STATE_URL'],
      ] as const) {
        for (const command of ['plan', 'apply']) {
          const run = await runCli(
            [command, dir, '--base-url', emu.url, ...(command === 'apply' ? ['--yes'] : []), ...args],
            { cwd: dir, env },
          );
          expect(run.code, run.stdout).toBe(1);
          expect(run.stdout).toBe('');
          expect(run.stderr).toMatch(new RegExp(`^error: ${from.replace(/-/g, '\\-')}: `));
          expect(run.stderr).toMatch(problem);
          expect(run.stderr).not.toContain(SECRET);
        }
      }
      expect(files(dir)).toEqual(before);
      expect(emu.writes()).toEqual([]);
    },
  );

  it('in tapedeck.yaml state: the same, located at the environment, the password never printed', async () => {
    emu ??= await emulator();
    const dir = testdir({
      'a.yaml': [offer],
      'tapedeck.yaml': `version: 1\nenvironments:\n  production:\n    state: pgsql://ci:${SECRET}@db/infra\n`,
    });
    const run = await runCli(['plan', dir, '--base-url', emu.url, '--env', 'production'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: tapedeck\.yaml: environments\.production\.state: pgsql:\/\/ is not a PostgreSQL URL scheme/,
    );
    expect(run.stderr).not.toContain(SECRET);
    expect(existsSync(join(dir, 'pgsql:'))).toBe(false);
  });

  it('a plain path, and a Windows drive path, are still files', async () => {
    emu ??= await emulator();
    const dir = testdir({ 'a.yaml': [offer] });
    for (const state of ['states/prod.json', 'C:state.json']) {
      const run = await runCli(['plan', dir, '--base-url', emu.url, '--state', state, '--json'], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
    }
  });
});

describe('a password in --state', () => {
  // A command line is readable by every user of the machine (ps, /proc/<pid>/cmdline): the password is masked in
  // every output, and the operator is told where to give it instead. TAPEDECK_STATE_URL or PGPASSWORD say nothing.
  const closed = `127.0.0.1:1/infra`;
  it('is warned about once, naming where to give it, and never printed', async () => {
    emu ??= await emulator();
    const dir = testdir({ 'a.yaml': [offer] });
    for (const [args, env, warned] of [
      [['--state', `postgres://ci:${SECRET}@${closed}`], {}, true],
      [['--state', `postgres://ci@${closed}?password=${SECRET}`], {}, true],
      [['--state', `postgres://ci@${closed}`], { PGPASSWORD: SECRET }, false],
      [[], { TAPEDECK_STATE_URL: `postgres://ci:${SECRET}@${closed}` }, false],
    ] as const) {
      const run = await runCli(['plan', dir, '--base-url', emu.url, ...args], { cwd: dir, env });
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain(SECRET);
      const warnings = run.stderr.split('\n').filter((l) => l.startsWith('warning: a password in --state'));
      expect(warnings.length, run.stderr).toBe(warned ? 1 : 0);
      if (warned) expect(warnings[0]).toMatch(/PGPASSWORD.*TAPEDECK_STATE_URL/);
    }
    expect(emu.writes()).toEqual([]);
  });
});

describe('a password written in a state URL', () => {
  it.each([
    ['--state', true, 1],
    ['TAPEDECK_STATE_URL', false, 0],
  ] as const)('named by %s (the agent shares its database so): %d warning(s)', (from, onCommandLine, count) => {
    const said: string[] = [];
    const io = { out: () => {}, err: (t: string) => void said.push(t), env: {}, cwd: '/', isTTY: false };
    const loc = namedState(`postgres://ci:${SECRET}@127.0.0.1:1/infra`, from, io, onCommandLine);
    expect(loc.kind).toBe('postgres');
    expect(said.filter((t) => t.startsWith(`warning: a password in ${from}`))).toHaveLength(count);
  });

  it.each([
    ['postgres://ci@h/db?password=p%40ss', 'p%40ss'],
    ['postgres://ci:p%40ss@h/db', 'p%40ss'],
    ['postgres://ci:plain@h/db?sslpassword=k%2Fey', 'k%2Fey'],
  ])('%s: found as written too, as ps shows it', (url, written) => {
    expect(secretsInUrl(url)).toContain(written);
  });
});
