// Agents sharing a repository's configurations on one PostgreSQL state, in-process against a real PostgreSQL
// server, the emulator and a bare git repository: each configuration is reconciled by one replica, the shares are
// even, and when one replica stops the other takes its configurations over; every create is made once. Replicas as
// processes, one SIGKILLed, are in test/slow/agent-fleet.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { offer, startAgent, titles, until, type RunningAgent } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { postgresForFile } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = (await postgresForFile('agent fleet tests on the database state'))!;

let emu: Emulator | undefined;
const agents: RunningAgent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  await emu?.close();
  emu = undefined;
});

const CONFIGS = ['c1', 'c2', 'c3', 'c4'];

describe.skipIf(!pg)('agents sharing configurations on the database state', () => {
  it('each configuration has one replica, shares are even; one stops and the other takes its share over', async () => {
    emu = await emulator();
    const repo = testRepo();
    const files = (n: number) =>
      Object.fromEntries(
        CONFIGS.flatMap((c) => [
          [`projects/${c}/tapedeck.yaml`, 'version: 1\n'],
          [`projects/${c}/offers.yaml`, Array.from({ length: n }, (_, i) => offer(`${c}-${i}`))],
        ]),
      );
    repo.push(files(1));
    const env = { TAPEDECK_STATE_URL: pg.url(`fleet${process.pid}`) };
    const start = async () => {
      const a = await startAgent(
        ['--repo', repo.bare, '--path', 'projects/*', '--base-url', emu!.url, '--interval', '200ms', '--auto-apply'],
        { cwd: tempDir(), env },
      );
      agents.push(a);
      return a;
    };
    const [a, b] = [await start(), await start()];
    const even = async () => {
      const [sa, sb] = [await a.status(), await b.status()];
      return sa.replica?.live === 2 && sb.replica?.live === 2 && sa.replica.share === 2 && sb.replica.share === 2;
    };
    await until('even shares', even);
    await until('every configuration applied', () => titles(emu!).length === CONFIGS.length);
    // Settled: each configuration is led by one replica alone, the one both name for it (while a share moves, the
    // replica giving it up may still lead it for a poll: its lock keeps the other waiting meanwhile).
    await until('each configuration led by its replica alone', async () => {
      const both = [await a.status(), await b.status()];
      return CONFIGS.every((c) => {
        const entries = both.map((s) => ({ s, e: s.configurations.find((x: any) => x.path === `projects/${c}`) }));
        const leaders = entries.filter(({ e }) => e.role === 'leader');
        return (
          leaders.length === 1 &&
          entries.every(({ e }) => e.replica === leaders[0].s.replica.id) &&
          leaders[0].s.replica.id !== undefined
        );
      });
    });
    const held = await pg.sql<{ n: string }>(`SELECT count(*) AS n FROM fleet${process.pid}.locks`);
    expect(Number(held[0].n)).toBe(CONFIGS.length);

    expect(await a.stop()).toBe(0);
    agents.splice(agents.indexOf(a), 1);
    await until('b holds all', async () => (await b.status()).replica?.share === CONFIGS.length);
    repo.push(files(2));
    await until('the next commit applied by b', () => titles(emu!).length === 2 * CONFIGS.length);
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(2 * CONFIGS.length);
    const sb = await b.status();
    expect(sb.configurations.map((c: any) => c.role)).toEqual(CONFIGS.map(() => 'leader'));
    // Between runs the state's connection is closed and opened again at the next: never a run failed for it.
    for (const x of [a, b]) expect(x.logs().filter((l) => l.msg === 'run failed')).toEqual([]);
  });
});
