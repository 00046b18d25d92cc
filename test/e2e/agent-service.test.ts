// `tapedeck agent` as a service, in-process against a real git repository and the real emulator: the signed
// webhook, the metrics as Prometheus text and the health endpoints, one agent per state file, and the flags and
// repositories it refuses at start. What it applies is in agent.test.ts.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { agentsPerTest, offer, startAgent, titles, until } from '../helpers/agent.js';
import { runCli } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
const { agent, agents } = agentsPerTest(
  () => emu,
  () => {
    emu = undefined;
  },
);

describe('tapedeck agent', () => {
  it('POST /hooks/github: a wrong or missing signature is refused with 401; a signed push runs at once', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'hook-secret'), 's3cret-hook\n');
    // An hour between runs: only the webhook can make the second one happen during the test.
    const a = await startAgent(
      [
        '--repo',
        repo.bare,
        '--path',
        'platform',
        '--base-url',
        emu.url,
        '--interval',
        '1h',
        '--auto-apply',
        '--webhook-secret-file',
        'hook-secret',
      ],
      { cwd },
    );
    agents.push(a);
    await until('offer A', () => titles(emu!).includes('A'));
    const pushed = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    const body = JSON.stringify({ ref: 'refs/heads/main', after: pushed });
    const post = (signature?: string, text = body) =>
      fetch(`${a.url}/hooks/github`, {
        method: 'POST',
        body: text,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          ...(signature ? { 'x-hub-signature-256': signature } : {}),
        },
      });
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
    expect(
      a
        .logs()
        .filter((l) => l.msg === 'webhook refused')
        .map((l) => l.reason),
    ).toEqual([
      'no X-Hub-Signature-256',
      'wrong signature', // the second within the minute is counted, not logged (refusals.ts)
      'X-Hub-Signature-256 is not one sha256=<64 hex digits>',
      'body over 1048576 bytes',
    ]);
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
    // tapedeck's own (prom-client's process and runtime metrics beside them: agent-signals.test.ts).
    expect(
      families
        .map((f) => f.name)
        .filter((n) => n.startsWith('tapedeck_'))
        .sort(),
    ).toEqual([
      'tapedeck_agent_budget_share_requests_per_second',
      'tapedeck_agent_budget_wait_seconds_total',
      'tapedeck_agent_changes_applied_total',
      'tapedeck_agent_changes_held',
      'tapedeck_agent_corrections_total',
      'tapedeck_agent_last_success_timestamp_seconds',
      'tapedeck_agent_lock_held',
      'tapedeck_agent_requests_total',
      'tapedeck_agent_resources_drifted',
      'tapedeck_agent_run_duration_seconds',
      'tapedeck_agent_runs_total',
      'tapedeck_agent_sync_info',
      'tapedeck_agent_throttled_requests_total',
      'tapedeck_build_info',
    ]);
    const runs = Object.fromEntries(
      family('tapedeck_agent_runs_total').metrics.map((m) => [m.labels?.result, Number(m.value)]),
    );
    expect(runs.success).toBeGreaterThanOrEqual(2);
    expect(runs).toMatchObject({ failed: 0, invalid: 0 });
    expect(family('tapedeck_agent_run_duration_seconds').type).toBe('HISTOGRAM');
    expect(Number(family('tapedeck_agent_run_duration_seconds').metrics[0].count)).toBe(runs.success);
    expect(family('tapedeck_agent_lock_held').metrics[0].value).toBe('1');
    expect(family('tapedeck_agent_changes_applied_total').metrics[0].value).toBe('1');
    expect(Number(family('tapedeck_agent_last_success_timestamp_seconds').metrics[0].value)).toBeGreaterThan(1.7e9);
    const requests = Object.fromEntries(
      family('tapedeck_agent_requests_total').metrics.map((m) => [m.labels?.kind, Number(m.value)]),
    );
    expect(requests.write).toBe(1);
    expect(requests.read).toBeGreaterThan(0);
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${a.url}/nowhere`)).status).toBe(404);
  });

  it('with a file state, a second agent for the same state is refused at start', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    await agent(repo.bare, cwd);
    const second = await runCli(
      ['agent', '--repo', repo.bare, '--path', 'platform', '--base-url', emu.url, '--listen', '127.0.0.1:0'],
      { cwd },
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /^error: the state .*default\.state\.json is locked by another apply \(host \S+, pid \d+/,
    );
  });

  it('bad flags and a repository that cannot be cloned: one line each, exit 1', async () => {
    const cwd = tempDir();
    const cases: [string[], RegExp][] = [
      [[], /^error: --repo is needed/],
      [
        ['--repo', cwd, '--interval', '5'],
        /^error: --interval must be a duration of at least 100ms such as 30s, 5m or 1h, not "5"/,
      ],
      [['--repo', cwd, '--listen', 'nowhere'], /^error: --listen takes HOST:PORT/],
      [
        ['--repo', 'https://user:tok3n-value@127.0.0.1:1/x.git'],
        /^error: git ls-remote of https:\/\/127\.0\.0\.1:1\/x\.git \(branch main\) failed: /m, // after the warning
      ],
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
