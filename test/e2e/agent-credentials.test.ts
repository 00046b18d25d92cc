// The repository's credentials never on a command line or in the checkout (issue 40, item 4): the agent as a
// process of its own (the CLI's source through tsx) cloning and fetching over HTTP from `git http-backend` behind a
// node:http server that wants Basic auth, on loopback. While it runs, every process's /proc/<pid>/cmdline is
// sampled (tapedeck's and the git processes it starts); none may hold the token, nor may the checkout's .git/config,
// the log or /status. Notification URLs come from --notify-file, and are not shown either.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { offer, titles, until } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

const root = resolve(import.meta.dirname, '../..');
// This run's own: every process of the machine is sampled, and another run of this file at the same time (another
// checkout's suite) puts its token in a URL on purpose; a fixed token would be found in that run's processes.
const TOKEN = `tok-${randomBytes(8).toString('hex')}`;
const running: ChildProcess[] = [];
const servers: Server[] = [];
let emu: Emulator | undefined;
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.kill('SIGTERM');
    await new Promise((r) => (p.exitCode === null ? p.once('exit', r) : r(null)));
  }
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  await emu?.close();
  emu = undefined;
});

/** `git http-backend` as CGI behind Basic auth (user x-access-token, password TOKEN); counts what it refused. */
async function gitServer(projectRoot: string) {
  const seen = { refused: 0, served: 0 };
  const expected = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
  const server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      seen.refused++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    seen.served++;
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        REMOTE_USER: 'x-access-token',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let out = Buffer.alloc(0);
    cgi.stdout.on('data', (d: Buffer) => (out = Buffer.concat([out, d])));
    cgi.on('close', () => {
      const end = out.indexOf('\r\n\r\n') >= 0 ? out.indexOf('\r\n\r\n') : out.indexOf('\n\n');
      const sep = out[end] === 13 ? 4 : 2;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of out.subarray(0, end).toString().split(/\r?\n/)) {
        const [k, ...v] = line.split(':');
        if (k.toLowerCase() === 'status') status = Number(v.join(':').trim().split(' ')[0]);
        else if (k) headers[k] = v.join(':').trim();
      }
      res.writeHead(status, headers).end(out.subarray(end + sep));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Every process's command line, sampled until stopped: the ones holding `needle`, and how many git ones were seen. */
function sampleCommandLines(needle: string) {
  const holding: string[] = [];
  const git = new Set<string>();
  const timer = setInterval(() => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      let line: string;
      try {
        line = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
      } catch {
        continue; // gone meanwhile
      }
      if (line.includes(needle) && !holding.includes(`${pid}: ${line}`)) holding.push(`${pid}: ${line}`);
      if (/\bgit(-remote-https?| fetch| clone| credential|-http)/.test(line) || line.includes('credential'))
        git.add(line);
    }
  }, 5);
  return { holding, git, stop: () => clearInterval(timer) };
}

function startAgentProcess(args: string[], cwd: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href,
      join(root, 'src/cli/bin.ts'),
      'agent',
      '--listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
      ...args,
    ],
    // TMPDIR: the agent's checkout is made under it, where the test can read its .git/config.
    {
      cwd,
      env: { ...process.env, NODE_OPTIONS: '', TAPEDECK_TOKEN: 'dev-token', TMPDIR: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const logs = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, any>);
  return { child, output: () => output, logs };
}

const gitConfigs = (dir: string) =>
  readdirSync(dir)
    .filter((d) => d.startsWith('tapedeck-agent-'))
    .map((d) => join(dir, d, 'repo/.git/config'))
    .filter(existsSync)
    .map((f) => readFileSync(f, 'utf8'));

describe('the repository credential', () => {
  it.each([
    [
      '--repo-token-file',
      (url: string, cwd: string) => {
        writeFileSync(join(cwd, 'repo-token'), `${TOKEN}\n`);
        return ['--repo', `${url}/origin.git`, '--repo-token-file', 'repo-token'];
      },
    ],
    [
      "a token in --repo's URL (warned about)",
      (url: string) => ['--repo', url.replace('http://', `http://x-access-token:${TOKEN}@`) + '/origin.git'],
    ],
  ])(
    '%s: clones and fetches; no command line, .git/config, log or status holds it',
    { timeout: 120_000 },
    async (how, args) => {
      emu = await emulator();
      const repo = testRepo();
      repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
      const git = await gitServer(dirname(repo.bare));
      const cwd = tempDir();
      const sampled = sampleCommandLines(TOKEN);
      const a = startAgentProcess(
        [...args(git.url, cwd), '--path', 'platform', '--base-url', emu.url, '--interval', '100ms', '--auto-apply'],
        cwd,
      );
      const started = await until('the agent to start', () => a.logs().find((l) => l.msg === 'agent started'), 60_000);
      await until('offer A', () => titles(emu!).includes('A'), 60_000);
      repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
      await until('offer B, fetched over HTTP with the credential', () => titles(emu!).includes('B'), 60_000);
      await until('git processes sampled', () => sampled.git.size >= 3, 60_000);
      const status = await (await fetch(`${started.listen}/status`)).text();
      // Its own command line, once started: the title written over a token given in the URL.
      const own = readFileSync(`/proc/${a.child.pid}/cmdline`, 'latin1');
      const configs = gitConfigs(cwd);
      a.child.kill('SIGTERM');
      await new Promise((r) => a.child.once('exit', r));
      sampled.stop();
      // A token in --repo's URL is on tapedeck's own command line until it starts (hence the warning); never on git's.
      const urlCase = how.startsWith('a token');
      // (tapedeck's own process, by its command: under tsx on Node 20 it is a child of the process started.)
      const others = sampled.holding.filter(
        (l) => !(urlCase && (l.startsWith(`${a.child.pid}: `) || /\/src\/cli\/bin\.ts agent /.test(l))),
      );
      expect(others, [...sampled.git].join('\n')).toEqual([]);
      expect(own).not.toContain(TOKEN);
      expect(git.seen.refused).toBeGreaterThan(0); // git asked without it first: the server does want a credential
      expect(git.seen.served).toBeGreaterThan(0);
      expect(configs).toHaveLength(1);
      expect(configs[0]).toContain(`url = ${git.url}/origin.git`);
      expect(configs[0]).not.toContain(TOKEN);
      expect(JSON.parse(status).repository).toBe(`${git.url}/origin.git`);
      for (const out of [a.output(), status]) expect(out).not.toContain(TOKEN);
      if (urlCase)
        expect(a.output()).toMatch(/^warning: a credential in --repo's URL \(give it with --repo-token-file FILE\)/m);
      else expect(a.output()).not.toContain('warning:');
    },
  );

  it('a wrong token: the clone fails in one line, exit 1, the token not in it', { timeout: 60_000 }, async () => {
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const git = await gitServer(dirname(repo.bare));
    const cwd = tempDir();
    writeFileSync(join(cwd, 'repo-token'), 'tok-wrong-value\n');
    const a = startAgentProcess(['--repo', `${git.url}/origin.git`, '--repo-token-file', 'repo-token'], cwd);
    const code = await new Promise((r) => a.child.once('exit', r));
    expect(code).toBe(1);
    // The branch is looked up first (a tag is refused at start), so the failure is that look-up's, with its code.
    expect(a.output()).toMatch(/git ls-remote of http:\/\/127\.0\.0\.1:\d+\/origin\.git \(branch main\) failed: /);
    expect(a.output()).toMatch(/E_GIT|error: git/);
    expect(a.output()).not.toContain('tok-wrong-value');
  });
});
