// Several agents on one database state, each the built CLI as its own process, against a real PostgreSQL server,
// the emulator and a bare git repository: only the lock holder reconciles; when it is SIGKILLed another takes over
// within an interval and nothing is written twice; SIGTERM stops an agent with exit 0 and its lock released.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { until } from '../helpers/agent.js';
import { bin, finished, start } from '../helpers/bin.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { postgresForFile } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = (await postgresForFile('agent tests with the database state'))!;

let emu: Emulator | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await emu?.close();
  emu = undefined;
});

const offers = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'Offer',
    name: `o${i}`,
    spec: { project_id: 'p', name: `Offer ${i}` },
  }));
const names = (e: Emulator) => [...(e.store.collections.get('offers')?.values() ?? [])].map((o) => o.name).sort();
const declared = (n: number) =>
  offers(n)
    .map((o) => o.spec.name)
    .sort();

interface Proc {
  child: ChildProcess;
  exited: Promise<{ code: number; stderr: string }>;
  logs(): Record<string, any>[];
}

function agent(repo: string, stateUrl: string): Proc {
  const child = start(
    process.execPath,
    [
      bin,
      'agent',
      '--repo',
      repo,
      '--path',
      'platform',
      '--base-url',
      emu!.url,
      '--interval',
      '200ms',
      '--auto-apply',
      '--listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
    ],
    // A TMPDIR of its own: an agent SIGKILLed below cannot remove its checkout, and this one is removed after the file.
    {
      cwd: tempDir(),
      env: {
        TAPEDECK_TOKEN: 'dev-token',
        CI: '',
        TAPEDECK_STATE_URL: stateUrl,
        TMPDIR: tempDir('tapedeck-agent-tmp-'),
      },
    },
  );
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c) => {
    err += c;
  });
  const exited = finished(child);
  return {
    child,
    exited,
    logs: () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
}

describe.skipIf(!pg)('several agents on one database state', () => {
  it('only the lock holder reconciles; the leader SIGKILLed, the other takes over and nothing is written twice; SIGTERM exits 0', async () => {
    emu = await emulator({}, { latencyMs: 5 });
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': offers(3) });
    const schema = `agents${process.pid}`;
    const url = pg.url(schema);
    const [a, b] = [agent(repo.bare, url), agent(repo.bare, url)];
    await until('the first commit applied', () => names(emu!).length === 3, 60_000);
    const held = await until(
      'a lock holder',
      async () => (await pg.sql<{ pid: number }>(`SELECT pid FROM ${schema}.locks`).catch(() => []))[0],
    );
    const [leader, standby] = held.pid === a.child.pid ? [a, b] : [b, a];
    expect(held.pid).toBe(leader.child.pid);
    const started = await until('the standby', () => standby.logs().find((l) => l.msg === 'agent started'), 60_000);
    await until('the standby standing by', () =>
      standby.logs().some((l) => l.msg === 'standing by: another agent holds the state lock'),
    );
    const status = await (await fetch(`${started.listen}/status`)).json();
    expect(status).toMatchObject({ role: 'standby', runs: 0 });
    expect(standby.logs().filter((l) => l.msg.startsWith('run '))).toEqual([]);

    leader.child.kill('SIGKILL');
    expect((await leader.exited).code).toBe(-1);
    repo.push({ 'platform/offers.yaml': offers(6) });
    await until('the next commit applied by the other agent', () => names(emu!).length === 6, 60_000);
    expect(names(emu)).toEqual(declared(6));
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(6);
    expect(await pg.sql(`SELECT pid FROM ${schema}.locks`)).toEqual([{ pid: standby.child.pid }]);
    expect(standby.logs().some((l) => l.msg === 'holding the state lock: this agent reconciles')).toBe(true);

    standby.child.kill('SIGTERM');
    const end = await standby.exited;
    expect(end.code, end.stderr).toBe(0);
    expect(await pg.sql(`SELECT pid FROM ${schema}.locks`)).toEqual([]);
    expect(standby.logs().at(-1)?.msg).toBe('agent stopped: the state is saved and its lock released');
  });
});
