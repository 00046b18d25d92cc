// The repository can narrow what an agent does, never widen it (issue 40, item 2): in-process agents against a real
// git repository and the emulator. A commit whose tapedeck.yaml gives the agent a setting that widens its reach is
// rejected, located, as any invalid commit; agent.auto_apply: false stops an agent started with --auto-apply from
// writing at that commit; --no-auto-apply wins whatever order the flags come in; validate says the same.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { agentsPerTest, offer, startAgent, titles, until } from '../helpers/agent.js';
import { runCli } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
const { agent } = agentsPerTest(
  () => emu,
  () => {
    emu = undefined;
  },
);

const widening = [
  'version: 1',
  'agent:',
  '  auto_apply: true',
  '  listen: 0.0.0.0:9464',
  '  notify: [https://hooks.example.com/T0/B0/secretkey]',
  '  webhook_secret_file: /etc/hostname',
  '',
].join('\n');

const located = [
  /^platform\/tapedeck\.yaml:3:3: agent\.auto_apply: only false is taken here .*--auto-apply$/,
  /^platform\/tapedeck\.yaml:4:3: agent\.listen: is the operator's, not the repository's: give the agent --listen/,
  /^platform\/tapedeck\.yaml:5:3: agent\.notify: is the operator's, not the repository's: .*--notify-file FILE$/,
  /^platform\/tapedeck\.yaml:6:3: agent\.webhook_secret_file: is the operator's, not the repository's/,
];

describe('what the repository may set of the agent', () => {
  it('a commit whose agent: section widens its reach is rejected, each key located; nothing is written', async () => {
    emu = await emulator();
    const repo = testRepo();
    const good = repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), '--debug'); // --debug: the run's detail lines, each issue
    await until('a first run', async () => (await a.status()).runs >= 1);
    const bad = repo.push({
      'platform/tapedeck.yaml': widening,
      'platform/offers.yaml': [offer('a', 'A'), offer('b')],
    });
    const status = await until('the commit rejected', async () => {
      const s = await a.status();
      return s.rejected_commit === bad && s.last_error && s;
    });
    expect(status).toMatchObject({ commit: good, auto_apply: false, last_error: { code: 'E_VALIDATION' } });
    const details = a
      .logs()
      .filter((l) => l.msg === 'detail')
      .map((l) => l.line);
    for (const [i, pattern] of located.entries()) expect(details[i], a.text()).toMatch(pattern);
    expect(emu.writes()).toEqual([]);
    expect(a.text()).not.toContain('secretkey');
  });

  it('agent.auto_apply: false stops an agent started with --auto-apply from writing; dropping it lets it write', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), '--auto-apply', '--full-every', '1');
    await until('offer A', () => titles(emu!).includes('A'));
    const paused = repo.push({
      'platform/tapedeck.yaml': 'version: 1\nagent:\n  auto_apply: false\n',
      'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')],
    });
    const status = await until('a run of the paused commit', async () => {
      const s = await a.status();
      return s.last_plan?.commit === paused && s;
    });
    expect(status).toMatchObject({ auto_apply: false, last_apply: null, rejected_commit: null });
    expect(status.last_plan.changes).toEqual([{ address: 'Offer/b', action: 'create' }]);
    expect(titles(emu)).toEqual(['A']);
    repo.push({ 'platform/tapedeck.yaml': 'version: 1\n' });
    await until('offer B', () => titles(emu!).includes('B'));
    await until('the status to say it applies again', async () => (await a.status()).auto_apply === true);
  });

  it.each([
    ['--no-auto-apply after --auto-apply', ['--auto-apply', '--no-auto-apply']],
    ['--no-auto-apply before --auto-apply', ['--no-auto-apply', '--auto-apply']],
  ])('%s: the agent only reports', async (_what, flags) => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), ...flags);
    const status = await until('a first plan', async () => {
      const s = await a.status();
      return s.last_plan && s;
    });
    expect(status).toMatchObject({ auto_apply: false, last_apply: null });
    expect(a.logs().find((l) => l.msg === 'agent started')).toMatchObject({ auto_apply: false });
    expect(emu.writes()).toEqual([]);
  });

  it('validate reports the same located errors, exit 1', async () => {
    const dir = join(tempDir(), 'platform');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tapedeck.yaml'), widening);
    writeFileSync(join(dir, 'offers.yaml'), 'kind: Offer\nname: a\nspec: { project_id: p, name: A }\n');
    const r = await runCli(['validate', 'platform'], { cwd: join(dir, '..') });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    for (const pattern of located)
      expect(
        lines.some((l) => pattern.test(l)),
        r.stderr,
      ).toBe(true);
    expect(r.stderr + r.stdout).not.toContain('secretkey');
  });
});

describe('where the agent sends its token', () => {
  it('a commit that moves the environment to another platform is rejected: nothing is sent there', async () => {
    emu = await emulator();
    const elsewhere = await emulator();
    try {
      const repo = testRepo();
      const project = (url: string) => `version: 1\nenvironments:\n  prod:\n    base_url: ${url}\n`;
      const good = repo.push({ 'platform/tapedeck.yaml': project(emu.url), 'platform/offers.yaml': [offer('a', 'A')] });
      const a = await startAgent(
        ['--repo', repo.bare, '--path', 'platform', '--env', 'prod', '--interval', '200ms', '--auto-apply', '--debug'],
        { cwd: tempDir() },
      );
      try {
        await until('offer A', () => titles(emu!).includes('A'));
        const moved = repo.push({
          'platform/tapedeck.yaml': project(elsewhere.url),
          'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')],
        });
        const status = await until('the commit rejected', async () => {
          const s = await a.status();
          return s.rejected_commit === moved && s.last_error && s;
        });
        expect(status).toMatchObject({ commit: good, last_error: { code: 'E_VALIDATION' } });
        expect(status.last_error.message).toMatch(
          /platform\/tapedeck\.yaml:4:5: environments\.prod\.base_url: .* is not the platform this agent runs against/,
        );
        expect(elsewhere.calls()).toEqual([]);
        expect(titles(emu)).toEqual(['A']);
      } finally {
        await a.stop();
      }
    } finally {
      await elsewhere.close();
    }
  });
});

describe("what the agent's machine gives the documents", () => {
  // `${env.NAME}` reads the agent's own environment: a push could otherwise copy any secret of its machine (a cloud
  // key, another service's token) into a value it sends to the platform. The operator names what may be read.
  it('a document reads only the variables --document-env names; any other is a rejected commit, nothing sent', async () => {
    emu = await emulator();
    const repo = testRepo();
    const secret = 'sk_live_9f8e7d6c5b4a';
    repo.push({ 'platform/offers.yaml': [offer('a', '${env.REGION}')] });
    const flags = ['--repo', repo.bare, '--path', 'platform', '--base-url', emu.url, '--interval', '200ms'];
    const a = await startAgent([...flags, '--auto-apply', '--document-env', 'REGION', '--debug'], {
      cwd: tempDir(),
      env: { REGION: 'eu', HOST_SECRET: secret },
    });
    try {
      await until('offer eu', () => titles(emu!).includes('eu'));
      const bad = repo.push({
        'platform/offers.yaml': [offer('a', '${env.REGION}'), offer('b', '${env.HOST_SECRET}')],
      });
      const status = await until('the commit rejected', async () => {
        const s = await a.status();
        return s.rejected_commit === bad && s.last_error && s;
      });
      expect(status.last_error).toMatchObject({ code: 'E_VALIDATION' });
      expect(status.last_error.message).toMatch(
        /platform\/offers\.yaml:\d+:\d+: \$\{env\.HOST_SECRET\} is not read by this agent: the variables documents may read are the operator's to name \(--document-env HOST_SECRET\)/,
      );
      expect(titles(emu)).toEqual(['eu']);
      expect(a.text()).not.toContain(secret);
    } finally {
      await a.stop();
    }
  });
});
