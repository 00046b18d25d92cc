// The webhook under a flood of unauthenticated callers (issue 40.6), as a soak: the built agent in a process of its
// own (its RSS is its own), a real git repository and the emulator, then CONNECTIONS connections kept open for
// SECONDS, each sending a delivery's head (a well-formed but wrong signature, application/json, Content-Length of
// the 1 MiB limit) and then its body up to one byte short, and holding it there. A connection the agent closes is
// opened again at once, so the pressure stays. Meanwhile the agent's RSS is sampled from /proc and /healthz asked
// every 250 ms. Target: peak RSS under 300 MB and every /healthz answered 200.
//
//   npm run build && npx tsx bench/webhook-flood.ts [--connections 2000] [--seconds 20] [--cli dist/cli/bin.js]
//
// (--cli another build's bin.js measures that build the same way: the figure before the fix.)
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from '../src/emulator/server.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const CONNECTIONS = Number(arg('--connections', '2000'));
const SECONDS = Number(arg('--seconds', '20'));
/** --once: a connection the agent closes is not opened again (the flood: 2,000 held, not renewed). */
const RECONNECT = !args.includes('--once');
const CLI = resolve(arg('--cli', join(import.meta.dirname, '../dist/cli/bin.js')));
const LIMIT = 1024 * 1024;

function repository(root: string): string {
  const git = (cwd: string, ...a: string[]) =>
    execFileSync('git', a, {
      cwd,
      stdio: 'ignore',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'b',
        GIT_AUTHOR_EMAIL: 'b@x',
        GIT_COMMITTER_NAME: 'b',
        GIT_COMMITTER_EMAIL: 'b@x',
      },
    });
  const bare = join(root, 'origin.git');
  const work = join(root, 'work');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(root, 'clone', '--quiet', bare, work);
  mkdirSync(join(work, 'platform'));
  writeFileSync(join(work, 'platform/offers.yaml'), 'kind: Offer\nname: a\nspec: { project_id: p, name: A }\n');
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'offers');
  git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
  return bare;
}

function rssMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** user + system CPU seconds of a process so far (clock ticks of 1/100 s) */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** GET /healthz every 250 ms for the given time, each on a new connection, 5 s to answer; prints the tally. */
const PROBE = `
const http = require('node:http');
const [port, ms] = process.argv.slice(1).map(Number);
const tally = { asked: 0, ok: 0, slowestMs: 0, seen: [] };
const end = Date.now() + ms;
const once = () => new Promise((done) => {
  const started = Date.now();
  tally.asked++;
  const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 5000 }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode === 200) tally.ok++; finish(); });
  });
  const finish = (e) => { const ms = Date.now() - started; tally.seen.push(e ? e.code || e.message : ms); tally.slowestMs = Math.max(tally.slowestMs, ms); done(); };
  req.on('timeout', () => req.destroy());
  req.on('error', finish);
});
(async () => {
  while (Date.now() < end) { await once(); await new Promise((r) => setTimeout(r, 250)); }
  process.stdout.write(JSON.stringify(tally));
})();
`;

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'tapedeck-flood-'));
  const emu = await startEmulator({ port: 0 });
  writeFileSync(join(root, 'secret'), 'flood-secret\n');
  const agent = spawn(
    process.execPath,
    [
      ...(process.env.FLOOD_NODE_ARGS?.split(' ') ?? []),
      CLI,
      'agent',
      ...['--repo', repository(root), '--path', 'platform', '--base-url', emu.url, '--interval', '1h'],
      ...['--listen', '127.0.0.1:0', '--webhook-secret-file', 'secret', '--log-format', 'json'],
    ],
    { cwd: root, env: { ...process.env, TAPEDECK_TOKEN: 'dev-token' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // Its log is read until it says where it listens, then drained (a refusal is a line each).
  let log = '';
  const port = await new Promise<number>((done, fail) => {
    const onData = (d: Buffer) => {
      log += d.toString();
      const m = /"listen":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(log);
      if (!m) return;
      agent.stderr.off('data', onData);
      agent.stderr.resume();
      done(Number(m[1]));
    };
    agent.stderr.on('data', onData);
    agent.once('exit', (code) => fail(new Error(`the agent exited ${code}: ${log}`)));
  });
  const baseline = rssMb(agent.pid!);
  const cpuBefore = cpuSeconds(agent.pid!);
  const body = Buffer.alloc(LIMIT - 1, 'x');
  const headText =
    'POST /hooks/github HTTP/1.1\r\nHost: agent\r\nX-GitHub-Event: push\r\n' +
    `X-Hub-Signature-256: sha256=${'0'.repeat(64)}\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT}\r\n\r\n`;
  let stopping = false;
  let opened = 0;
  const live = new Set<Socket>();
  const openOne = () => {
    if (stopping) return;
    opened++;
    const s = connect(port, '127.0.0.1', () => {
      s.write(headText);
      s.write(body);
    });
    live.add(s);
    s.on('error', () => undefined);
    s.on('data', () => undefined);
    s.once('close', () => {
      live.delete(s);
      if (RECONNECT) setImmediate(openOne);
    });
  };
  for (let i = 0; i < CONNECTIONS; i++) openOne();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(agent.pid!).rss)), 100);
  // The probe is a process of its own, a new connection each time as a kubelet's: the flood's own event loop (busy
  // writing megabytes) must not be what makes an answer late.
  const prober = spawn(process.execPath, ['-e', PROBE, String(port), String(SECONDS * 1000)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let probed = '';
  prober.stdout.on('data', (d) => (probed += d));
  const proberDone = new Promise((r) => prober.once('exit', r));
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  stopping = true;
  clearInterval(sampler);
  await proberDone;
  const health = JSON.parse(probed) as { asked: number; ok: number; slowestMs: number };
  const cpu = cpuSeconds(agent.pid!) - cpuBefore;
  const end = rssMb(agent.pid!);
  for (const s of live) s.destroy();
  agent.kill('SIGTERM');
  await new Promise((r) => agent.once('exit', r));
  await emu.close();
  rmSync(root, { recursive: true, force: true });
  const row = {
    step: 'webhook flood',
    cli: CLI,
    connections: CONNECTIONS,
    reconnect: RECONNECT,
    seconds: SECONDS,
    connections_opened: opened,
    rss_before_mb: Math.round(baseline.rss),
    rss_peak_sampled_mb: Math.round(peak),
    rss_peak_vmhwm_mb: Math.round(end.peak),
    healthz_asked: health.asked,
    healthz_ok: health.ok,
    healthz_slowest_ms: health.slowestMs,
    healthz_each: (health as { seen?: unknown[] }).seen,
    agent_cpu_s: +cpu.toFixed(1),
    target: 'peak RSS < 300 MB and every /healthz 200',
    met: end.peak < 300 && health.ok === health.asked,
  };
  process.stdout.write(`${JSON.stringify(row, null, 2)}\n`);
}

await main();
