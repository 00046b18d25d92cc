// The agent on the database state, in-process against a real PostgreSQL server, the emulator and a bare git
// repository: its database session ended under it (failover, pg_terminate_backend) loses it the lock, and it takes
// the lock again and goes on, writing nothing twice. Several agents as processes are in test/slow/agent-ha.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { startAgent, until, type RunningAgent } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { postgresForFile } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = (await postgresForFile('agent tests on the database state'))!;

let emu: Emulator | undefined;
const agents: RunningAgent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  await emu?.close();
  emu = undefined;
});

const offer = (name: string) => ({ kind: 'Offer', name, spec: { project_id: 'p', name } });
const names = (e: Emulator) => [...(e.store.collections.get('offers')?.values() ?? [])].map((o) => o.name).sort();

describe.skipIf(!pg)('the agent on the database state', () => {
  it('its session ended: the lock is taken again, the next commit applied, each create once', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a')] });
    const schema = `agent${process.pid}`;
    const a = await startAgent(
      ['--repo', repo.bare, '--path', 'platform', '--base-url', emu.url, '--interval', '200ms', '--auto-apply'],
      { cwd: tempDir(), env: { TAPEDECK_STATE_URL: pg.url(schema) } },
    );
    agents.push(a);
    await until('offer a', () => names(emu!).includes('a'));
    const [held] = await pg.sql<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1`,
    );
    await pg.sql('SELECT pg_terminate_backend($1)', [held.pid]);
    await until('the lock lost', () =>
      a
        .logs()
        .some(
          (l) =>
            l.msg.startsWith('the state lock is lost') || l.msg.startsWith('the state database connection is lost'),
        ),
    );
    repo.push({ 'platform/offers.yaml': [offer('a'), offer('b')] });
    await until('offer b', () => names(emu!).includes('b'));
    expect(names(emu)).toEqual(['a', 'b']);
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(2);
    const status = await a.status();
    expect(status).toMatchObject({ role: 'leader', state: expect.stringMatching(/^postgres:\/\/.*:\*\*\*@/) });
    expect(JSON.stringify(status)).not.toContain(pg.password);
    expect(a.text()).not.toContain(pg.password);
  });
});
