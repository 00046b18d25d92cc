// The agent's image, short of building it (images cannot be built here): the install steps its Dockerfile runs are
// one script, scripts/install-agent.sh, run here into an empty directory (npm pack, then npm install --omit=dev of
// the tarball); the agent then runs from that directory alone, as an unprivileged user (nobody, through setpriv,
// when the tests run as root, as CI does), against the emulator and a local bare repository: it applies the commit,
// answers /status, and exits 0 on SIGTERM. examples/agent/Dockerfile's own promises are test/unit/agent-manifests.test.ts's.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { finished, root } from '../helpers/bin.js';
import { emulator } from '../helpers/emulator.js';
import { offer, titles, until } from '../helpers/agent.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';
import type { Emulator } from '../../src/emulator/server.js';

const asRoot = process.getuid?.() === 0;
const NOBODY = '65534';
let emu: Emulator | undefined;
afterAll(async () => emu?.close());

/** A directory under /tmp that an unprivileged user may read (and, `writable`, write). */
function shared(prefix: string, writable = false): string {
  const dir = tempDir(prefix, '/tmp');
  chmodSync(dir, writable ? 0o777 : 0o755);
  return dir;
}

it('installs from the packed package with production dependencies only; the agent runs from there unprivileged', async () => {
  const dest = join(shared('tapedeck-install-'), 'opt');
  const install = spawnSync('sh', [join(root, 'scripts/install-agent.sh'), dest], { encoding: 'utf8' });
  expect(install.status, install.stderr).toBe(0);
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  expect(install.stdout.trim().split('\n').at(-1)).toBe(version);
  const modules = join(dest, 'node_modules');
  for (const dep of ['prom-client', 'pg', 'commander']) expect(existsSync(join(modules, dep)), dep).toBe(true);
  for (const dev of ['vitest', 'typescript', 'esbuild', 'eslint', 'kubernetes-models'])
    expect(existsSync(join(modules, dev)), dev).toBe(false);
  // Only what package.json's `files` ship: no sources, no tests.
  expect(existsSync(join(modules, '@tapedeck/cli/src'))).toBe(false);
  expect(existsSync(join(modules, '@tapedeck/cli/test'))).toBe(false);
  execFileSync('chmod', ['-R', 'a+rX', dest]);

  emu = await emulator();
  const made = testRepo();
  made.push({ 'platform/offers.yaml': [offer('a', 'A')] });
  const bare = join(shared('tapedeck-install-repo-'), 'platform.git');
  execFileSync('git', ['clone', '--quiet', '--bare', made.bare, bare]);
  // Owned by the user that reads it: git refuses a local repository another user owns (safe.directory).
  if (asRoot) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, bare]);
  const work = shared('tapedeck-install-work-', true);
  const command = [
    process.execPath,
    join(modules, '.bin/tapedeck'),
    'agent',
    '--repo',
    bare,
    '--path',
    'platform',
    '--base-url',
    emu.url,
    '--listen',
    '127.0.0.1:0',
    '--interval',
    '200ms',
    '--auto-apply',
    '--state',
    join(work, 'default.state.json'),
    '--log-format',
    'json',
  ];
  const [cmd, ...args] = asRoot
    ? ['setpriv', '--reuid', NOBODY, '--regid', NOBODY, '--clear-groups', '--', ...command]
    : command;
  const child = spawn(cmd, args, {
    cwd: work,
    // Nothing of this checkout: no NODE_PATH, no PATH into its node_modules; the token from the environment.
    env: { PATH: '/usr/bin:/bin', HOME: work, TAPEDECK_TOKEN: 'dev-token', GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const done = finished(child);
  let log = '';
  child.stderr!.on('data', (c) => (log += c));
  const lines = () =>
    log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
  try {
    const started = await until(
      'the agent to start',
      () => lines().find((l) => l.msg === 'agent started'),
      60_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; its output: ${log}`);
    });
    await until('offer A applied', () => titles(emu!).includes('A'), 60_000);
    // The platform has the write before the run's report reaches /status (the state is saved first): wait for it.
    const status = await until(
      'the run reported on /status',
      async () => {
        const s = await (await fetch(`${started.listen}/status`)).json();
        return s.sync && s;
      },
      60_000,
    );
    expect(status).toMatchObject({ version, role: 'leader', sync: { status: 'synced' } });
    if (asRoot)
      expect(execFileSync('ps', ['-o', 'uid=', '-p', String(child.pid)], { encoding: 'utf8' }).trim()).toBe(NOBODY);
  } finally {
    child.kill('SIGTERM');
  }
  const exit = await done;
  expect(exit.code, log).toBe(0);
  expect(lines().at(-1)?.msg).toBe('agent stopped: the state is saved and its lock released');
  expect(existsSync(join(work, 'default.state.json'))).toBe(true);
});
