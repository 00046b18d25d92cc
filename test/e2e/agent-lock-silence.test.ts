// Two agents on one database state, in-process, against a real PostgreSQL server, the emulator and a bare git
// repository. The leader's database connection goes silent (a TCP proxy that cuts it without a packet) while it
// applies a commit: it steps down the moment it cannot confirm its lock (/status standby, lock_held 0, a log line)
// and sends nothing more, the other agent takes the lock and applies the newer commit, and the platform ends as that
// agent left it, with nothing left to plan.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { startAgent, titles, until, type RunningAgent } from '../helpers/agent.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { postgresForFile } from '../helpers/postgres.js';
import { faultyProxy, type ProxyFault } from '../helpers/proxy.js';
import { tcpProxy, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { tempDir } from '../helpers/tmp.js';

const pg = (await postgresForFile('agent lock-silence tests'))!;

const BOUND_MS = 1500;

let emu: Emulator | undefined;
let front: Awaited<ReturnType<typeof faultyProxy>> | undefined;
let cut: TcpProxy | undefined;
const agents: RunningAgent[] = [];
afterEach(async () => {
  // The cut connections closed first: an agent waiting on one to connect stops at once.
  await cut?.close();
  for (const a of agents.splice(0)) await a.stop();
  await front?.close();
  await emu?.close();
  emu = front = cut = undefined;
});

const project = (title: string) => ({
  'platform/o.yaml': ['a', 'b', 'c'].map((n) => ({
    kind: 'Offer',
    name: n,
    spec: { project_id: 'p', name: `${n} ${title}` },
  })),
  'platform/tapedeck.yaml': 'version: 1\nname: shop\n',
});

async function agent(baseUrl: string, stateUrl: string, repo: string): Promise<RunningAgent> {
  const a = await startAgent(
    // One write at a time: each waits for the lock to be confirmed, the one after the cut too.
    [
      '--repo',
      repo,
      '--path',
      'platform',
      '--base-url',
      baseUrl,
      '--interval',
      '200ms',
      '--auto-apply',
      '--concurrency',
      '1',
    ],
    { cwd: tempDir(), env: { TAPEDECK_STATE_URL: stateUrl, TAPEDECK_LOCK_BOUND_MS: String(BOUND_MS) } },
  );
  agents.push(a);
  return a;
}

const lockHeld = async (a: RunningAgent) =>
  /^tapedeck_agent_lock_held (\d)/m.exec(await (await fetch(`${a.url}/metrics`)).text())?.[1];

describe.skipIf(!pg)('two agents, the leader cut off from the database mid-apply', () => {
  it('the cut one steps down and sends nothing more; the other applies the newer commit and has nothing left to plan', async () => {
    const url = pg.url(`agentcut${process.pid}`);
    emu = await emulator();
    cut = await tcpProxy({ host: '127.0.0.1', port: pg.port });
    const repo = testRepo();
    repo.push(project('v1'));
    let hold: ProxyFault;
    // Only the first PATCH of the older commit is held.
    front = await faultyProxy(emu.url, (req) => {
      const fault = req.method === 'PATCH' ? hold : undefined;
      if (fault) hold = undefined;
      return fault;
    });

    const a = await agent(front.url, throughProxy(url, cut), repo.bare);
    await until('commit 1 applied by the first agent', () => titles(emu!).join() === 'a v1,b v1,c v1');
    expect(await a.status()).toMatchObject({ role: 'leader' });
    const b = await agent(front.url, url, repo.bare);
    await until('the second agent standing by', async () => (await b.status()).role === 'standby');

    let newer = '';
    let released!: () => void;
    const done = new Promise<void>((r) => {
      released = r;
    });
    hold = {
      then: async () => {
        cut!.silence();
        const cutAt = Date.now();
        newer = repo.push(project('v3'));
        await until('the newer commit applied by the second agent', () => titles(emu!).join() === 'a v3,b v3,c v3');
        await until('the second agent leading', async () => (await b.status()).role === 'leader');
        // Past the bound since the cut: whatever the first agent sends now rests on a confirmation after it.
        await sleep(Math.max(0, BOUND_MS - (Date.now() - cutAt)));
        released();
      },
    };
    const older = repo.push(project('v2'));
    await done;
    await until('the first agent standing by', async () => (await a.status()).role === 'standby');
    const failed = await until('the first agent to end its run', () =>
      a.logs().find((l) => l.msg === 'run failed' && l.commit === older.slice(0, 12)),
    );
    expect(failed.error).toMatch(/not sent: the lock on the state .* was not confirmed within \d+ ms/);
    // Told with the reason (on a loaded machine a slow confirmation may have made it step down once before too).
    const lost = a.logs().filter((l) => l.msg.startsWith('the state lock is lost'));
    expect(lost.at(-1)?.reason).toMatch(/^the lock on the state .* was not confirmed within \d+ ms/);
    expect(await lockHeld(a)).toBe('0');
    expect(await lockHeld(b)).toBe('1');

    // The platform holds what the second agent applied: the first one's older values went no further than `a`,
    // before the newer commit was applied.
    expect(titles(emu)).toEqual(['a v3', 'b v3', 'c v3']);
    const dir = testdir({ 'o.yaml': project('v3')['platform/o.yaml'], 'tapedeck.yaml': 'version: 1\nname: shop\n' });
    const plan = await runCli(['plan', dir, '--base-url', front.url, '--json', '--refresh', 'full'], {
      cwd: dir,
      env: { TAPEDECK_STATE_URL: url },
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).changes.map((c: { action: string }) => c.action)).toEqual(['noop', 'noop', 'noop']);
    expect((await b.status()).commit).toBe(newer);
  });
});
