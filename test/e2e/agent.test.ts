// `tapedeck agent` in-process against a real git repository (a bare one made with the system's git), the real
// emulator and a state file: commits applied as they are pushed, drift reported or corrected, a bad commit kept
// out, the webhook's signature, the metrics as Prometheus text, one agent per state file. The database state's
// several agents (a leader SIGKILLed) are in test/slow/agent-ha.test.ts.
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { startAgent, until, type RunningAgent } from '../helpers/agent.js';
import { runCli } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
const agents: RunningAgent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  await emu?.close();
  emu = undefined;
});

const offer = (name: string, title = name) => ({ kind: 'Offer', name, spec: { project_id: 'p', name: title } });
const offers = (e: Emulator) => [...e.store.collections.get('offers')?.values() ?? []] as { id: string; name: string }[];
const titles = (e: Emulator) => offers(e).map((o) => o.name).sort();
const agent = async (repo: string, cwd: string, ...extra: string[]) => {
  const a = await startAgent(['--repo', repo, '--path', 'platform', '--base-url', emu!.url, '--interval', '200ms', ...extra], { cwd });
  agents.push(a);
  return a;
};

describe('tapedeck agent', () => {
  it('applies each pushed commit once, with --auto-apply; the status names the commit', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    // Only the first run full: at 200 ms a fast machine reaches run 13 (full, by default) before the second push.
    const a = await agent(repo.bare, cwd, '--auto-apply', '--full-every', '1000');
    await until('offer A', () => titles(emu!).includes('A'));
    const second = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    await until('offer B', () => titles(emu!).includes('B'));
    const status = await until('a run of the new commit', async () => { const s = await a.status(); return s.commit === second && s.last_run?.result === 'success' && s; });
    expect(status).toMatchObject({ role: 'leader', environment: 'default', auto_apply: true, rejected_commit: null });
    expect(titles(emu)).toEqual(['A', 'B']);
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(2);
    // The first run is full; the next (--full-every 1000) reads only what the commit changed: Offer/a is not read.
    const runs = a.logs().filter((l) => l.msg === 'run success');
    expect(runs[0]).toMatchObject({ refresh: 'full', changes: ['create Offer/a'] });
    expect(runs.find((r) => r.changes?.includes('create Offer/b'))).toMatchObject({ refresh: 'changed', not_read: 1 });
    expect(existsSync(join(cwd, '.tapedeck/default.state.json'))).toBe(true);
    expect(await a.stop()).toBe(0);
    expect(existsSync(join(cwd, '.tapedeck/default.state.json.lock'))).toBe(false);
  });

  it('reports drift made on the platform without writing; with --auto-apply corrects it', async () => {
    emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'Gold' }] });
    const repo = testRepo();
    const commit = repo.push({ 'platform/offers.yaml': [{ kind: 'Offer', name: 'gold', id: 'off_1', spec: { project_id: 'p', name: 'Gold' } }] });
    const hook = await receiver();
    // Drift in unchanged documents is seen by full runs only: every second run is one here.
    const reporter = await agent(repo.bare, tempDir(), '--notify', hook.url, '--full-every', '2');
    await until('a first run', async () => (await reporter.status()).last_plan?.summary.noop === 1);
    await call(emu, 'PATCH', '/monetization/offers/v1/off_1', { offer_id: 'off_1', offer: { name: 'Changed by hand' }, update_mask: 'name' });
    const drift = await until('the drift reported', async () => { const s = await reporter.status(); return s.last_plan?.summary.update === 1 && s; });
    // Nothing was applied, so the state records no fields: a changed run reads everything too (not_read 0).
    expect(drift.last_plan).toEqual({ commit, refresh: expect.any(String), not_read: 0, summary: expect.objectContaining({ update: 1 }), changes: [{ address: 'Offer/gold', action: 'update' }] });
    const told = await until('the drift notification', () => hook.bodies.find((b) => b.event === 'drift'));
    expect(told).toMatchObject({ environment: 'default', commit, text: expect.stringMatching(/^tapedeck default: 1 resource differs? from commit .*update Offer\/gold/) });
    expect(emu.writes().filter((w) => w.path.startsWith('/monetization'))).toHaveLength(1); // the hand-made change only
    await reporter.stop();
    // The same drift, told once: later runs found it again without another notification.
    expect(hook.bodies.filter((b) => b.event === 'drift')).toHaveLength(1);
    const fixer = await agent(repo.bare, tempDir(), '--auto-apply', '--notify', hook.url, '--full-every', '2');
    await until('the drift corrected', () => offers(emu!)[0].name === 'Gold');
    await until('the applied notification', () => hook.bodies.find((b) => b.event === 'applied'));
    expect((await fixer.status()).last_error).toBeNull();
  });

  it('a commit that fails validation is reported and not applied; the last good one stays until a fix arrives', async () => {
    emu = await emulator();
    const repo = testRepo();
    const good = repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    await until('offer A', () => titles(emu!).includes('A'));
    const bad = repo.push({ 'platform/offers.yaml': 'kind: Offer\nname: b\nspec:\n  project_id: p\n  name: B\n  priority: high\n' });
    const status = await until('the bad commit rejected', async () => { const s = await a.status(); return s.rejected_commit === bad && s.last_error && s; });
    expect(status.commit).toBe(good);
    expect(status.last_error.message).toMatch(new RegExp(`^commit ${bad.slice(0, 12)} was not applied: 1 error in the documents; first: platform/offers.yaml:6:\\d+: `));
    // Later runs keep reconciling the good commit, and the bad one is checked once.
    await until('a run after the rejection', async () => (await a.status()).last_run?.result === 'success');
    expect(a.logs().filter((l) => l.msg === 'run invalid')).toHaveLength(1);
    expect(titles(emu)).toEqual(['A']);
    const fixed = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    await until('offer B', () => titles(emu!).includes('B'));
    expect(await a.status()).toMatchObject({ commit: fixed, rejected_commit: null });
  });

  it('a guardrail denial is respected: nothing written, the run reports it; a commit that drops the rule applies', async () => {
    emu = await emulator();
    const repo = testRepo();
    const rule = '- name: no-creates\n  expression: change.action != "create"\n';
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')], 'platform/rules/r.yaml': rule });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    const status = await until('the denial reported', async () => { const s = await a.status(); return s.last_error && s; });
    expect(status.last_error.message).toMatch(/^1 change denied by guardrail rules, nothing was written: rule no-creates denies Offer\/a \(create\)/);
    expect(emu.writes()).toEqual([]);
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')], 'platform/rules/r.yaml': '[]\n' });
    await until('offer A', () => titles(emu!).includes('A'));
  });

  it('POST /hooks/github: a wrong or missing signature is refused with 401; a signed push runs at once', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'hook-secret'), 's3cret-hook\n');
    // An hour between runs: only the webhook can make the second one happen during the test.
    const a = await startAgent(['--repo', repo.bare, '--path', 'platform', '--base-url', emu.url, '--interval', '1h', '--auto-apply', '--webhook-secret-file', 'hook-secret'], { cwd });
    agents.push(a);
    await until('offer A', () => titles(emu!).includes('A'));
    const pushed = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    const body = JSON.stringify({ ref: 'refs/heads/main', after: pushed });
    const post = (signature?: string, text = body) => fetch(`${a.url}/hooks/github`, { method: 'POST', body: text, headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...(signature ? { 'x-hub-signature-256': signature } : {}) } });
    const sign = (secret: string, text = body) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`;
    expect((await post()).status).toBe(401);
    expect((await post(sign('wrong'))).status).toBe(401);
    expect((await post(sign('s3cret-hook', `${body} `), body)).status).toBe(401);
    expect((await post('sha256=zz')).status).toBe(401);
    expect((await post(sign('s3cret-hook'), 'x'.repeat(2 * 1024 * 1024))).status).toBe(413);
    expect((await a.status()).runs).toBe(1);
    expect(titles(emu)).toEqual(['A']);
    const other = JSON.stringify({ ref: 'refs/heads/feature' });
    expect((await post(sign('s3cret-hook', other), other)).status).toBe(200);
    const res = await post(sign('s3cret-hook'));
    expect(res.status).toBe(202);
    await until('offer B', () => titles(emu!).includes('B'));
    expect(a.logs().filter((l) => l.msg === 'webhook refused').map((l) => l.reason)).toEqual(['no X-Hub-Signature-256', 'wrong signature', 'wrong signature', 'wrong signature', 'body over 1048576 bytes']);
    expect(a.text()).not.toContain('s3cret-hook');
  });

  it('/metrics is Prometheus text: runs by result, the duration histogram, the lock, requests; /healthz, /readyz', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    await until('two runs', async () => (await a.status()).runs >= 2);
    const res = await fetch(`${a.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheus(await res.text());
    const family = (name: string) => families.find((f) => f.name === name)!;
    expect(families.map((f) => f.name).sort()).toEqual([
      'tapedeck_agent_changes_applied_total', 'tapedeck_agent_last_success_timestamp_seconds', 'tapedeck_agent_lock_held',
      'tapedeck_agent_requests_total', 'tapedeck_agent_resources_drifted', 'tapedeck_agent_run_duration_seconds',
      'tapedeck_agent_runs_total', 'tapedeck_agent_throttled_requests_total',
    ]);
    const runs = Object.fromEntries(family('tapedeck_agent_runs_total').metrics.map((m) => [m.labels?.result, Number(m.value)]));
    expect(runs.success).toBeGreaterThanOrEqual(2);
    expect(runs).toMatchObject({ failed: 0, invalid: 0 });
    expect(family('tapedeck_agent_run_duration_seconds').type).toBe('HISTOGRAM');
    expect(Number(family('tapedeck_agent_run_duration_seconds').metrics[0].count)).toBe(runs.success);
    expect(family('tapedeck_agent_lock_held').metrics[0].value).toBe('1');
    expect(family('tapedeck_agent_changes_applied_total').metrics[0].value).toBe('1');
    expect(Number(family('tapedeck_agent_last_success_timestamp_seconds').metrics[0].value)).toBeGreaterThan(1.7e9);
    const requests = Object.fromEntries(family('tapedeck_agent_requests_total').metrics.map((m) => [m.labels?.kind, Number(m.value)]));
    expect(requests.write).toBe(1);
    expect(requests.read).toBeGreaterThan(0);
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${a.url}/nowhere`)).status).toBe(404);
  });

  it('stopping (SIGTERM) mid-apply: the write in flight finishes, no other starts, the state records it, exit 0', async () => {
    emu = await emulator({}, { latencyMs: 40 });
    const repo = testRepo();
    const all = Array.from({ length: 20 }, (_, i) => offer(`o${i}`, `Offer ${i}`));
    repo.push({ 'platform/offers.yaml': all });
    const cwd = tempDir();
    const a = await agent(repo.bare, cwd, '--auto-apply', '--concurrency', '1');
    await until('some creates', () => emu!.stats.writes >= 3);
    expect(await a.stop()).toBe(0);
    const created = offers(emu);
    expect(created.length).toBeGreaterThan(2);
    expect(created.length).toBeLessThan(20);
    const state = JSON.parse(readFileSync(join(cwd, '.tapedeck/default.state.json'), 'utf8'));
    expect(Object.values(state.resources).map((e: any) => e.id).sort()).toEqual(created.map((o) => o.id).sort());
    expect(a.logs().find((l) => l.msg === 'run success')?.applied).toMatchObject({ applied: created.length, skipped: 20 - created.length });
    expect(existsSync(join(cwd, '.tapedeck/default.state.json.lock'))).toBe(false);
    // The next agent makes the rest, and nothing twice.
    await agent(repo.bare, cwd, '--auto-apply');
    await until('every offer', () => offers(emu!).length === 20);
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(20);
  });

  it('with a file state, a second agent for the same state is refused at start', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    await agent(repo.bare, cwd);
    const second = await runCli(['agent', '--repo', repo.bare, '--path', 'platform', '--base-url', emu.url, '--listen', '127.0.0.1:0'], { cwd });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^error: the state .*default\.state\.json is locked by another apply \(host \S+, pid \d+/);
  });

  it('bad flags and a repository that cannot be cloned: one line each, exit 1', async () => {
    const cwd = tempDir();
    const cases: [string[], RegExp][] = [
      [[], /^error: --repo is needed/],
      [['--repo', cwd, '--interval', '5'], /^error: --interval must be a duration of at least 100ms such as 30s, 5m or 1h, not "5"/],
      [['--repo', cwd, '--listen', 'nowhere'], /^error: --listen takes HOST:PORT/],
      [['--repo', 'https://user:tok3n-value@127.0.0.1:1/x.git'], /^error: git clone of https:\/\/127\.0\.0\.1:1\/x\.git \(branch main\) failed: /],
      [['--repo', join(cwd, 'nothing-here')], /^error: --repo .*nothing-here: no such directory/],
    ];
    for (const [args, expected] of cases) {
      const r = await runCli(['agent', ...args], { cwd });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr).not.toContain('tok3n-value');
    }
  });
});

/** A local HTTP server that records the JSON bodies posted to it; it answers 500 to the first, to be retried. */
async function receiver(): Promise<{ url: string; bodies: Record<string, any>[] }> {
  const bodies: Record<string, any>[] = [];
  let first = true;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => { text += c; });
    req.on('end', () => {
      if (first) {
        first = false;
        res.writeHead(500).end();
        return;
      }
      bodies.push(JSON.parse(text));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  afterEach(() => { server.close(); });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/T000/B000/XXXX`, bodies };
}
