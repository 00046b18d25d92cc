// What the repository may not move under a running agent (issue 40, item 2's siblings): the project file's
// settings that say where the agent's state is (its lock, its owners), which configuration that state records, and
// where its token is read from are pinned when the agent starts, as its platform is (agent-reach.test.ts). A later
// commit that changes one is rejected, located, as an invalid commit; the last good commit stays. In-process agents
// against a real git repository, the emulator and a real PostgreSQL.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { agentsPerTest, offer, startAgent, titles, until } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { postgresForFile } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
agentsPerTest(
  () => emu,
  () => {
    emu = undefined;
  },
);
const pg = await postgresForFile('the agent pinning its database state');

/** tapedeck.yaml with one environment `prod` and these settings of it. */
const project = (settings: Record<string, string>, top = '') =>
  `version: 1\n${top}environments:\n  prod:\n${Object.entries(settings)
    .map(([k, v]) => `    ${k}: ${v}\n`)
    .join('')}`;

/** Where `needle` stands in `text`: `line:col`, 1-based. */
function at(text: string, needle: string): string {
  const before = text.slice(0, text.indexOf(needle)).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

/** Pushes each commit in turn and waits for the agent to reject it; the commit it follows stays `good`. */
async function eachRejected(
  a: Awaited<ReturnType<typeof startAgent>>,
  repo: ReturnType<typeof testRepo>,
  good: string,
  commits: Array<{ text: string; setting: string; message: RegExp }>,
) {
  for (const [i, c] of commits.entries()) {
    const moved = repo.push({
      'platform/tapedeck.yaml': c.text,
      'platform/offers.yaml': [offer('a', 'A'), offer(`b${i}`, 'B')],
    });
    const status = await until(`the commit changing ${c.setting} rejected`, async () => {
      const s = await a.status();
      return s.rejected_commit === moved && s.last_error?.message.includes(moved.slice(0, 12)) && s;
    });
    expect(status).toMatchObject({ commit: good, last_error: { code: 'E_VALIDATION' } });
    expect(status.last_error.message).toContain(`platform/tapedeck.yaml:${at(c.text, `${c.setting}:`)}: `);
    expect(status.last_error.message).toMatch(c.message);
  }
}

describe('the repository cannot move where the agent reads its token', () => {
  it('a commit changing token_file, token_env or the configuration name is rejected, located', async () => {
    emu = await emulator();
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    const other = join(dir, 'other-secret');
    writeFileSync(tokenFile, 'dev-token\n');
    writeFileSync(other, 'not-for-the-platform\n');
    const repo = testRepo();
    const base = { base_url: emu.url, token_file: tokenFile };
    const good = repo.push({ 'platform/tapedeck.yaml': project(base), 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await startAgent(
      ['--repo', repo.bare, '--path', 'platform', '--env', 'prod', '--interval', '200ms', '--auto-apply'],
      { cwd: dir },
    );
    try {
      await until('offer A', () => titles(emu!).includes('A'));
      await eachRejected(a, repo, good, [
        {
          text: project({ ...base, token_file: other }),
          setting: 'token_file',
          message: /environments\.prod\.token_file: is not where this agent started reading its token/,
        },
        {
          text: project({ base_url: emu.url, token_env: 'HOME' }),
          setting: 'token_env',
          message: /environments\.prod\.token_env: is not where this agent started reading its token/,
        },
        {
          text: project(base, 'name: someone-elses\n'),
          setting: 'name',
          message: /name: is not the configuration this agent's state records/,
        },
      ]);
      // Nothing was sent with another token (the emulator refuses any but dev-token: 401), nor written.
      expect(emu.calls().filter((c) => c.status === 401)).toEqual([]);
      expect(titles(emu)).toEqual(['A']);
    } finally {
      await a.stop();
    }
  });
});

describe.runIf(pg)('the repository cannot move the agent state', () => {
  it('a commit pointing environments.prod.state at another database is rejected; nothing is written there', async () => {
    emu = await emulator();
    const schema = `pinned${process.pid}`;
    const elsewhere = `elsewhere${process.pid}`;
    const repo = testRepo();
    const base = { base_url: emu.url, state: pg!.url(schema) };
    const good = repo.push({ 'platform/tapedeck.yaml': project(base), 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await startAgent(
      ['--repo', repo.bare, '--path', 'platform', '--env', 'prod', '--interval', '200ms', '--auto-apply'],
      { cwd: tempDir() },
    );
    try {
      await until('offer A', () => titles(emu!).includes('A'));
      await eachRejected(a, repo, good, [
        {
          text: project({ ...base, state: pg!.url(elsewhere) }),
          setting: 'state',
          message: /environments\.prod\.state: is not the state this agent started with \(its lock and its owners\)/,
        },
      ]);
      const status = await a.status();
      expect(JSON.stringify(status)).not.toContain(pg!.password);
      const tables = await pg!.sql('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
        elsewhere,
      ]);
      expect(tables).toEqual([]);
      expect(titles(emu)).toEqual(['A']);
    } finally {
      await a.stop();
    }
  });
});
