// One agent following several configurations of one repository (--path with a glob), in-process against a real bare
// git repository and the emulator: each configuration names its own emulator (its platform), so each emulator's
// call log is one configuration's requests. A push changing one configuration reconciles that one alone; an
// invalid configuration is rejected alone while the others go on; /status and /metrics list each configuration.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { offer, startAgent, titles, until, type RunningAgent } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

const emus: Emulator[] = [];
const agents: RunningAgent[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  for (const e of emus.splice(0)) await e.close();
  for (const s of servers.splice(0)) s.close();
});

const NAMES = ['alpha', 'beta', 'gamma'];
const project = (url: string) => `version: 1\nenvironments:\n  prod:\n    base_url: ${url}\n`;

/** A repository of three configurations under projects/, each on its own emulator, and a folder of notes. */
async function fleetRepo() {
  const platforms = Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, await emulator()] as const)));
  emus.push(...Object.values(platforms));
  const repo = testRepo();
  const files: Record<string, string | object[]> = { 'projects/notes/README.md': 'not a configuration\n' };
  for (const n of NAMES) {
    files[`projects/${n}/tapedeck.yaml`] = project(platforms[n].url);
    files[`projects/${n}/offers.yaml`] = [offer(`${n}-1`)];
  }
  const first = repo.push(files);
  return { repo, platforms, first };
}

async function start(repo: string, cwd: string, ...extra: string[]) {
  const a = await startAgent(['--repo', repo, '--path', 'projects/*', '--env', 'prod', '--auto-apply', ...extra], {
    cwd,
  });
  agents.push(a);
  return a;
}

const byPath = (status: Record<string, any>) =>
  Object.fromEntries((status.configurations as Record<string, any>[]).map((c) => [c.path, c]));

/** A signed push delivery for the branch. */
async function deliver(a: RunningAgent, secret: string, after: string): Promise<number> {
  const body = JSON.stringify({ ref: 'refs/heads/main', after });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const res = await fetch(`${a.url}/hooks/github`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature },
  });
  return res.status;
}

describe('an agent following several configurations', () => {
  it('finds them by glob and reconciles each on its own; a push changing one reconciles that one alone', async () => {
    const { repo, platforms, first } = await fleetRepo();
    const cwd = tempDir();
    writeFileSync(join(cwd, 'hook-secret'), 'fleet-secret\n');
    // An hour between runs: after the first runs, only a push can make one happen during the test.
    const a = await start(repo.bare, cwd, '--interval', '1h', '--webhook-secret-file', 'hook-secret');
    for (const n of NAMES) await until(`${n} applied`, () => titles(platforms[n]).includes(`${n}-1`));
    const s1 = await until('three first runs', async () => {
      const s = await a.status();
      return s.configurations?.every((c: any) => c.runs === 1) && s;
    });
    expect(s1).toMatchObject({ paths: ['projects/*'], role: 'leader', replica: null });
    expect(Object.keys(byPath(s1))).toEqual(['projects/alpha', 'projects/beta', 'projects/gamma']);
    for (const c of s1.configurations)
      expect(c).toMatchObject({ role: 'leader', commit: first, environment: 'prod', sync: { status: 'synced' } });

    const before = Object.fromEntries(NAMES.map((n) => [n, platforms[n].calls().length]));
    const second = repo.push({ 'projects/alpha/offers.yaml': [offer('alpha-1'), offer('alpha-2')] });
    expect(await deliver(a, 'fleet-secret', second)).toBe(202);
    await until('alpha-2 made', () => titles(platforms.alpha).includes('alpha-2'));
    const s2 = await until('alpha run again', async () => {
      const s = await a.status();
      return byPath(s)['projects/alpha'].commit === second && byPath(s)['projects/alpha'].runs >= 2 && s;
    });
    // beta and gamma sent nothing: their files did not change and their interval has not come.
    expect(platforms.beta.calls().length).toBe(before.beta);
    expect(platforms.gamma.calls().length).toBe(before.gamma);
    expect(platforms.alpha.calls().length).toBeGreaterThan(before.alpha);
    expect(byPath(s2)['projects/beta']).toMatchObject({ runs: 1, commit: first });
    expect(a.logs().find((l) => l.msg === 'new commit: reconciling the configurations it changed')).toMatchObject({
      configurations: ['projects/alpha'],
    });

    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/^tapedeck_agent_runs_total\{configuration="projects\/alpha",result="success"\} 2$/m);
    expect(metrics).toMatch(/^tapedeck_agent_runs_total\{configuration="projects\/beta",result="success"\} 1$/m);
    expect(metrics).toMatch(/^tapedeck_agent_changes_applied_total\{configuration="projects\/alpha"\} 2$/m);
    expect(metrics).toMatch(/^tapedeck_agent_lock_held\{configuration="projects\/gamma"\} 1$/m);
    expect(metrics).not.toMatch(/configuration="projects\/notes"/);
  });

  it('an invalid configuration is rejected alone, at the start or at a commit; the others go on', async () => {
    const { repo, platforms } = await fleetRepo();
    const bodies: Record<string, any>[] = [];
    const hook = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        bodies.push(JSON.parse(text));
        res.end();
      });
    });
    servers.push(hook);
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const notify = `http://127.0.0.1:${(hook.address() as { port: number }).port}/`;
    // gamma cannot even be read at the start (its project file is not YAML): refused alone, located.
    const broken = repo.push({ 'projects/gamma/tapedeck.yaml': `${project(platforms.gamma.url)}agent: [\n` });
    const a = await start(repo.bare, tempDir(), '--interval', '200ms', '--notify', notify);
    for (const n of ['alpha', 'beta']) await until(`${n} applied`, () => titles(platforms[n]).includes(`${n}-1`));
    const s1 = byPath(await a.status());
    expect(s1['projects/gamma']).toMatchObject({
      role: 'refused',
      rejected_commit: broken,
      last_error: {
        code: 'E_VALIDATION',
        message: expect.stringMatching(/^1 error; first: projects\/gamma\/tapedeck\.yaml:\d+:\d+: /),
      },
    });
    expect(platforms.gamma.calls()).toEqual([]);

    // beta's next commit is invalid (an offer without its spec): beta keeps its last good commit, alpha goes on.
    const bad = repo.push({
      'projects/alpha/offers.yaml': [offer('alpha-1'), offer('alpha-2')],
      'projects/beta/offers.yaml': [{ kind: 'Offer', name: 'beta-2' }],
    });
    await until('alpha-2 made', () => titles(platforms.alpha).includes('alpha-2'));
    const s2 = await until('beta rejected', async () => {
      const s = byPath(await a.status());
      return s['projects/beta'].rejected_commit === bad && s['projects/beta'].last_error && s;
    });
    expect(s2['projects/beta']).toMatchObject({
      commit: broken,
      sync: { status: 'rejected' },
      last_error: { code: 'E_VALIDATION' },
    });
    expect(s2['projects/alpha']).toMatchObject({ rejected_commit: null, sync: { status: 'synced' } });
    const told = await until('beta told', () =>
      bodies.find((b) => b.event === 'invalid' && b.configuration === 'projects/beta'),
    );
    expect(told.text).toMatch(/^tapedeck projects\/beta prod: commit [0-9a-f]{12} was not applied/);
    expect(bodies.find((b) => b.configuration === 'projects/gamma')).toMatchObject({ event: 'invalid' });

    // gamma's fix names its own platform, which no configuration named at the start: refused (a push alone does
    // not decide where the agent sends its token). Named on a platform the agent runs against, it is made.
    const elsewhere = repo.push({ 'projects/gamma/tapedeck.yaml': project(platforms.gamma.url) });
    await until(
      'gamma refused again',
      async () => byPath(await a.status())['projects/gamma'].rejected_commit === elsewhere,
    );
    expect(byPath(await a.status())['projects/gamma'].last_error.message).toMatch(
      /^projects\/gamma: its platform .* is not one this agent runs against/,
    );
    const fixed = repo.push({
      'projects/gamma/tapedeck.yaml': project(platforms.alpha.url),
      'projects/beta/offers.yaml': [offer('beta-1'), offer('beta-2')],
    });
    await until('gamma applied', () => titles(platforms.alpha).includes('gamma-1'));
    await until('beta-2 made', () => titles(platforms.beta).includes('beta-2'));
    const s3 = await until('all synced at the fix', async () => {
      const s = byPath(await a.status());
      return Object.values(s).every((c: any) => c.commit === fixed && c.sync?.status === 'synced') && s;
    });
    expect(s3['projects/gamma']).toMatchObject({ role: 'leader', rejected_commit: null });
    expect(platforms.gamma.calls()).toEqual([]);
    expect(platforms.alpha.writes().filter((w) => w.method === 'POST')).toHaveLength(3);
    expect(platforms.beta.writes().filter((w) => w.method === 'POST')).toHaveLength(2);
  });
});
