// Three agents sharing six configurations of one repository on a PostgreSQL state, each the built CLI as its own
// process, each with a token of its own (so each emulator's call log names which agent sent what), against a real
// PostgreSQL server, a bare git repository and one emulator per configuration: the shares are even and each
// configuration is reconciled by one agent; one agent SIGKILLed, the two others take its configurations over, apply
// the next commit, and every create is made once; SIGTERM then stops them with their locks and rows gone.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { offer, titles, until } from '../helpers/agent.js';
import { bin, finished, start } from '../helpers/bin.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { postgresForFile } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = (await postgresForFile('agent fleet tests with the database state'))!;

const emus: Emulator[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const e of emus.splice(0)) await e.close();
});

const CONFIGS = ['a', 'b', 'c', 'd', 'e', 'f'];
const TOKENS = ['token-0', 'token-1', 'token-2'];

interface Proc {
  child: ChildProcess;
  exited: Promise<{ code: number; stderr: string }>;
  logs(): Record<string, any>[];
  status(): Promise<Record<string, any>>;
}

function agent(repo: string, stateUrl: string, token: string): Proc {
  const child = start(
    process.execPath,
    [
      bin,
      'agent',
      '--repo',
      repo,
      '--path',
      'projects/*',
      '--env',
      'prod',
      '--interval',
      '500ms',
      '--auto-apply',
      '--listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
    ],
    // A TMPDIR of its own: an agent SIGKILLed below cannot remove its checkout, and this one is removed after the file.
    {
      cwd: tempDir(),
      env: { TAPEDECK_TOKEN: token, CI: '', TAPEDECK_STATE_URL: stateUrl, TMPDIR: tempDir('tapedeck-agent-tmp-') },
    },
  );
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c) => {
    err += c;
  });
  const logs = () =>
    err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  return {
    child,
    exited: finished(child),
    logs,
    status: async () => {
      const started = await until('the agent started', () => logs().find((l) => l.msg === 'agent started'), 60_000);
      return (await fetch(`${started.listen}/status`)).json();
    },
  };
}

/** Settled: every configuration led by exactly one of `agents`, the one every agent names for it. */
async function settled(agents: Proc[]): Promise<Record<string, string> | false> {
  const statuses = await Promise.all(agents.map((a) => a.status()));
  const owner: Record<string, string> = {};
  for (const c of CONFIGS) {
    const entries = statuses.map((s) => ({ s, e: s.configurations.find((x: any) => x.path === `projects/${c}`) }));
    const leaders = entries.filter(({ e }) => e.role === 'leader');
    if (leaders.length !== 1 || !entries.every(({ e }) => e.replica === leaders[0].s.replica.id)) return false;
    owner[c] = leaders[0].s.replica.id;
  }
  return owner;
}

/** Every finished run of every agent, by configuration: from its start to its end (the log line's time). */
function runs(agents: Proc[]): Map<string, { agent: number; from: number; to: number }[]> {
  const by = new Map<string, { agent: number; from: number; to: number }[]>();
  for (const [agent, a] of agents.entries())
    for (const l of a.logs().filter((x) => /^run /.test(x.msg))) {
      const to = Date.parse(l.time);
      by.set(l.configuration, [...(by.get(l.configuration) ?? []), { agent, from: to - l.duration_ms, to }]);
    }
  return by;
}

describe.skipIf(!pg)('agents sharing a repository of configurations', () => {
  it('three share six evenly, one each at a time; one SIGKILLed, the others take its share and create each once', async () => {
    const platforms = await Promise.all(CONFIGS.map(() => emulator({}, { tokens: TOKENS })));
    emus.push(...platforms);
    const repo = testRepo();
    const files = (n: number) =>
      Object.fromEntries(
        CONFIGS.flatMap((c, i) => [
          [`projects/${c}/tapedeck.yaml`, `version: 1\nenvironments:\n  prod:\n    base_url: ${platforms[i].url}\n`],
          [`projects/${c}/offers.yaml`, Array.from({ length: n }, (_, k) => offer(`${c}-${k}`))],
        ]),
      );
    repo.push(files(2));
    const schema = `fleet${process.pid}`;
    const agents = TOKENS.map((t) => agent(repo.bare, pg.url(schema), t));
    await until('every configuration applied', () => platforms.every((p) => titles(p).length === 2), 90_000);
    await until(
      'even shares',
      async () =>
        (await Promise.all(agents.map((a) => a.status()))).every((s) => s.replica.live === 3 && s.replica.share === 2),
      90_000,
    );
    const before = await until('each configuration led by its replica alone', () => settled(agents), 60_000);
    const shares = Object.values(before).reduce<Record<string, number>>((n, r) => ({ ...n, [r]: (n[r] ?? 0) + 1 }), {});
    expect(Object.values(shares)).toEqual([2, 2, 2]);

    const [victim, ...rest] = agents;
    const victimId = (await victim.status()).replica.id;
    victim.child.kill('SIGKILL');
    expect((await victim.exited).code).toBe(-1);
    const killedAt = Date.now();
    await until(
      'its share taken over',
      async () =>
        (await Promise.all(rest.map((a) => a.status()))).every((s) => s.replica.live === 2 && s.replica.share === 3),
      60_000,
    );
    const after = await until('settled on two', () => settled(rest), 60_000);
    for (const c of CONFIGS) expect(after[c]).not.toBe(victimId);
    repo.push(files(3));
    await until('the next commit applied', () => platforms.every((p) => titles(p).length === 3), 90_000);

    for (const [i, p] of platforms.entries()) {
      expect(titles(p)).toEqual([0, 1, 2].map((k) => `${CONFIGS[i]}-${k}`));
      expect(p.writes().filter((w) => w.method === 'POST')).toHaveLength(3);
      // The killed agent (token-0) sent nothing after it died; the others sent every call since.
      expect(p.calls().filter((c) => c.at > killedAt && c.caller === 0)).toEqual([]);
    }
    // One agent at a time: a configuration's runs never overlap, whichever agents made them.
    for (const [configuration, list] of runs(agents)) {
      const sorted = [...list].sort((x, y) => x.from - y.from);
      for (let k = 1; k < sorted.length; k++)
        expect(
          sorted[k].from,
          `${configuration}: ${JSON.stringify(sorted.slice(k - 1, k + 1))}`,
        ).toBeGreaterThanOrEqual(sorted[k - 1].to);
    }
    expect(new Set([...runs(agents).values()].flat().map((r) => r.agent)).size).toBe(3);

    for (const a of rest) a.child.kill('SIGTERM');
    for (const a of rest) {
      const end = await a.exited;
      expect(end.code, end.stderr).toBe(0);
    }
    expect(await pg.sql(`SELECT configuration FROM ${schema}.locks`)).toEqual([]);
    // The killed agent's row goes at the next listing; the stopped ones removed their own.
    const rows = await pg.sql<{ id: string }>(`SELECT id FROM ${schema}.replicas`);
    expect(rows.map((r) => r.id).filter((id) => id !== victimId)).toEqual([]);
  });
});
