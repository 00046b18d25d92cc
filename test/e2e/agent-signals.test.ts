// What the agent says, as users of Argo CD and Flux expect it: a lasting sync status (metric, /status and the
// notification) for a tip that was rejected, drift counted after the run with corrections apart, the process and
// build metrics, and start-up errors that say what is wrong (a tag for --branch, a --path not in the repository, git
// failures with their own code, in the chosen log format). In-process against a real git repository and the emulator.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { tapedeckVersion } from '../../src/version.js';
import { agentsPerTest, offer, offers, titles, until, type RunningAgent } from '../helpers/agent.js';
import { runCli } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
const { agent } = agentsPerTest(
  () => emu,
  () => {
    emu = undefined;
  },
);

/** /metrics parsed by a real Prometheus text parser: each family by name. */
async function metrics(a: RunningAgent) {
  const families = parsePrometheus(await (await fetch(`${a.url}/metrics`)).text());
  return (name: string) => families.find((f) => f.name === name);
}
const syncInfo = async (a: RunningAgent) => (await metrics(a))('tapedeck_agent_sync_info')!.metrics;
const value = async (a: RunningAgent, name: string) => Number((await metrics(a))(name)!.metrics[0].value);

/** A local server recording the notifications posted to it. */
async function receiver(): Promise<{ url: string; bodies: Record<string, any>[] }> {
  const bodies: Record<string, any>[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  afterEach(() => {
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, bodies };
}

describe('the sync status', () => {
  it('a rejected tip stays rejected (metric, /status, notification) while later runs succeed, until a newer commit is applied', async () => {
    emu = await emulator();
    const repo = testRepo();
    const good = repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const hook = await receiver();
    const a = await agent(repo.bare, tempDir(), '--auto-apply', '--notify', hook.url);
    await until('A applied', async () => (await a.status()).sync?.status === 'synced' && titles(emu!).includes('A'));
    expect(await syncInfo(a)).toEqual([{ labels: { commit: good, tip: good, status: 'synced' }, value: '1' }]);
    const bad = repo.push({
      'platform/offers.yaml': 'kind: Offer\nname: b\nspec: { project_id: p, priority: high }\n',
    });
    await until('the tip rejected', async () => (await a.status()).rejected_commit === bad);
    const runs = (await a.status()).runs;
    // Later runs reconcile the last good commit and succeed; the tip is still not applied, and every signal says so.
    const later = await until('three more runs', async () => {
      const s = await a.status();
      return s.runs >= runs + 3 && s;
    });
    expect(later.last_run.result).toBe('success');
    expect(later.sync).toEqual({ status: 'rejected', commit: good, tip: bad });
    expect(await syncInfo(a)).toEqual([{ labels: { commit: good, tip: bad, status: 'rejected' }, value: '1' }]);
    const told = await until('the notification', () => hook.bodies.find((b) => b.event === 'invalid'));
    expect(told).toMatchObject({ sync_status: 'rejected', tip: bad, commit: good, rejected_commit: bad });
    const fixed = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    await until('the fix applied', async () => (await a.status()).sync?.tip === fixed && titles(emu!).includes('B'));
    await until('synced', async () => (await a.status()).sync?.status === 'synced');
    expect(await syncInfo(a)).toEqual([{ labels: { commit: fixed, tip: fixed, status: 'synced' }, value: '1' }]);
  });

  it('resources_drifted counts what differs after the run; an applied correction is counted apart', async () => {
    emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'Gold' }] });
    const repo = testRepo();
    repo.push({
      'platform/offers.yaml': [{ kind: 'Offer', name: 'gold', id: 'off_1', spec: { project_id: 'p', name: 'Gold' } }],
    });
    // Report only: the drift stays, the branch is out of sync.
    const reporter = await agent(repo.bare, tempDir(), '--full-every', '1');
    await until('a first run', async () => (await reporter.status()).runs >= 1);
    await call(emu, 'PATCH', '/monetization/offers/v1/off_1', {
      offer_id: 'off_1',
      offer: { name: 'Changed by hand' },
      update_mask: 'name',
    });
    await until('the drift seen', async () => (await reporter.status()).sync?.status === 'out_of_sync');
    expect(await value(reporter, 'tapedeck_agent_resources_drifted')).toBe(1);
    expect(await value(reporter, 'tapedeck_agent_corrections_total')).toBe(0);
    await reporter.stop();
    // With --auto-apply: what a run applies is not drift after it; a change made by hand since the last apply,
    // put back by a full run, is counted as a correction.
    const repo2 = testRepo();
    repo2.push({ 'platform/offers.yaml': [offer('b', 'Basic')] });
    const fixer = await agent(repo2.bare, tempDir(), '--auto-apply', '--full-every', '1');
    await until(
      'created',
      async () => (await fixer.status()).sync?.status === 'synced' && titles(emu!).includes('Basic'),
    );
    expect(await value(fixer, 'tapedeck_agent_resources_drifted')).toBe(0);
    expect(await value(fixer, 'tapedeck_agent_changes_applied_total')).toBe(1);
    expect(await value(fixer, 'tapedeck_agent_corrections_total')).toBe(0);
    const made = offers(emu).find((o) => o.name === 'Basic')!;
    await call(emu, 'PATCH', `/monetization/offers/v1/${made.id}`, {
      offer_id: made.id,
      offer: { name: 'Changed by hand' },
      update_mask: 'name',
    });
    await until('corrected', async () => (await value(fixer, 'tapedeck_agent_corrections_total')) === 1);
    expect(titles(emu)).toContain('Basic');
    expect(await value(fixer, 'tapedeck_agent_resources_drifted')).toBe(0);
    expect(await value(fixer, 'tapedeck_agent_changes_applied_total')).toBe(2);
  });

  it("/metrics has prom-client's process and runtime metrics and tapedeck_build_info{version}", async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir());
    await until('a run', async () => (await a.status()).runs >= 1);
    const family = await metrics(a);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(family(name), name).toBeDefined();
    expect(family('tapedeck_build_info')!.metrics).toEqual([{ labels: { version: tapedeckVersion() }, value: '1' }]);
  });
});

describe('the listener', () => {
  it('unknown paths are 404 whatever the method; a known path with another method is 405', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir());
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'])
      expect((await fetch(`${a.url}/nowhere`, { method })).status, method).toBe(404);
    const post = await fetch(`${a.url}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(`${a.url}/hooks/github`)).status).toBe(405);
  });

  it("a form-encoded delivery (GitHub's other content type) for another branch is ignored; for the branch it runs", async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'secret'), 'hook-s3cret');
    const a = await agent(repo.bare, cwd, '--interval', '1h', '--auto-apply', '--webhook-secret-file', 'secret');
    await until('the first run', async () => (await a.status()).runs === 1);
    const deliver = (ref: string) => {
      const body = new URLSearchParams({ payload: JSON.stringify({ ref }) }).toString();
      return fetch(`${a.url}/hooks/github`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-github-event': 'push',
          'x-hub-signature-256': `sha256=${createHmac('sha256', 'hook-s3cret').update(body).digest('hex')}`,
        },
      });
    };
    repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    expect((await deliver('refs/heads/feature')).status).toBe(200);
    expect((await a.status()).runs).toBe(1);
    expect((await deliver('refs/heads/main')).status).toBe(202);
    await until('B applied', () => titles(emu!).includes('B'));
  });
});

describe('errors at start', () => {
  const cwd = tempDir();
  const start = (args: string[]) => runCli(['agent', '--listen', '127.0.0.1:0', ...args], { cwd });

  it('--branch naming a tag is refused in one line; a missing branch is E_GIT; a wrong --path names it', async () => {
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    execFileSync('git', ['-C', repo.bare, 'tag', 'v1.0', 'main']);
    const tag = await start(['--repo', repo.bare, '--branch', 'v1.0', '--path', 'platform']);
    expect(tag).toMatchObject({
      code: 1,
      stderr: `error: --branch v1.0 is a tag of ${repo.bare}, not a branch: the agent follows a branch (each new commit on it); to hold a release, give it a branch of its own\n`,
    });
    const missing = await start(['--repo', repo.bare, '--branch', 'nope', '--log-format', 'json']);
    expect(missing.code).toBe(1);
    const [line, ...more] = missing.stderr.trim().split('\n');
    expect(more).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({
      level: 'error',
      msg: 'agent not started',
      error: `--branch nope: ${repo.bare} has no such branch`,
      error_code: 'E_GIT',
    });
    const path = await start(['--repo', repo.bare, '--path', 'platfrom', '--log-format', 'json']);
    expect(JSON.parse(path.stderr)).toMatchObject({
      error: expect.stringMatching(
        /^--path platfrom: no such directory in .* at [0-9a-f]{12} \(branch main\); give the configuration's directory inside the repository$/,
      ),
      error_code: 'E_INPUT',
    });
  });

  it('an unreachable git server is E_GIT, in the JSON log format when it is chosen', async () => {
    const r = await start(['--repo', 'http://127.0.0.1:1/platform.git', '--log-format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr)).toMatchObject({ level: 'error', msg: 'agent not started', error_code: 'E_GIT' });
    expect(JSON.parse(r.stderr).error).toMatch(
      /^git ls-remote of http:\/\/127\.0\.0\.1:1\/platform\.git \(branch main\) failed: /,
    );
  });
});
