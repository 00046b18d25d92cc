// Agents sharing a repository of configurations (issue 46), as a soak: CONFIGS configurations of DOCS offers each
// in one bare git repository, AGENTS built agents as processes on one PostgreSQL state (the test helper's server),
// one emulator per configuration (its call log is that configuration's requests; each agent has a token of its own,
// which the log names as `caller`), --interval INTERVAL. Then:
//   1. all start together: when every configuration has been applied (its last create), against 2 intervals;
//      the shares once settled; whether any configuration's runs overlapped (the agents' run lines), and creates
//      made more than once (each emulator's POSTs against DOCS);
//   2. one agent SIGKILLed: when each of its configurations next ran on another agent, against one interval;
//   3. the others stopped but one: it holds every configuration; its peak RSS (VmHWM) against 400 MB.
//
//   npm run build && npx tsx bench/fleet-soak.ts [--configs 20] [--docs 200] [--agents 3] [--interval 10s]
/* eslint-disable @typescript-eslint/no-explicit-any -- the agents' JSON log lines and /status, read as they come */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../src/emulator/server.js';
import { testRepo } from '../test/helpers/git.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { removeTempDirs, tempDir } from '../test/helpers/tmp.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const CONFIGS = Number(arg('--configs', '20'));
const DOCS = Number(arg('--docs', '200'));
const AGENTS = Number(arg('--agents', '3'));
const INTERVAL = arg('--interval', '10s');
const INTERVAL_MS = Number(/^(\d+)s$/.exec(INTERVAL)?.[1] ?? 10) * 1000;
const CLI = join(import.meta.dirname, '../dist/cli/bin.js');
const tokens = Array.from({ length: AGENTS }, (_, i) => `soak-token-${i}`);
const names = Array.from({ length: CONFIGS }, (_, i) => `projects/c${String(i).padStart(2, '0')}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(
  what: string,
  probe: () => T | false | Promise<T | false>,
  ms = Number(arg('--wait', '300000')),
): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const v = await probe();
    if (v) return v;
  }
  throw new Error(`waited ${ms} ms for ${what}`);
}

interface Agent {
  child: ChildProcess;
  logs(): Record<string, any>[];
  status(): Promise<Record<string, any>>;
  peakMb(): number;
  cpuSeconds(): number;
}

function agent(repo: string, url: string, token: string): Agent {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'agent',
      '--repo',
      repo,
      '--path',
      'projects/*',
      '--env',
      'prod',
      '--interval',
      INTERVAL,
      '--auto-apply',
      '--log-format',
      'json',
      '--listen',
      '127.0.0.1:0',
    ],
    {
      cwd: tempDir(),
      env: { ...process.env, TAPEDECK_TOKEN: token, TAPEDECK_STATE_URL: url, TMPDIR: tempDir() },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const logs = () =>
    err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  let peak = 0;
  let cpu = 0;
  const sample = setInterval(() => {
    try {
      const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      peak = Math.max(peak, Number(kb ?? 0) / 1024);
      // utime and stime, in clock ticks (100 a second): the CPU the agent used, whatever the machine's load.
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      cpu = (Number(stat[11]) + Number(stat[12])) / 100;
    } catch {
      clearInterval(sample);
    }
  }, 200);
  return {
    child,
    logs,
    peakMb: () => peak,
    cpuSeconds: () => cpu,
    status: async () => {
      const started = await until('started', () => logs().find((l) => l.msg === 'agent started')).catch((e) => {
        console.error(err.slice(0, 3000));
        throw e;
      });
      return (await fetch(`${started.listen}/status`)).json();
    },
  };
}

/** Every finished run, by configuration and agent, from the agents' run lines. */
const runs = (agents: Agent[]) =>
  agents.flatMap((a, agentIndex) =>
    a
      .logs()
      .filter((l) => /^run /.test(l.msg))
      .map((l) => ({ agentIndex, c: l.configuration as string, to: Date.parse(l.time), ms: l.duration_ms as number })),
  );

async function main() {
  const server = await startPostgres();
  if (!server.ok) throw new Error(server.reason);
  const pg = server.pg;
  const emus: Emulator[] = await Promise.all(names.map(() => startEmulator({ port: 0, tokens })));
  const repo = testRepo();
  const files: Record<string, string | object[]> = {};
  for (const [i, n] of names.entries()) {
    files[`${n}/tapedeck.yaml`] = `version: 1\nenvironments:\n  prod:\n    base_url: ${emus[i].url}\n`;
    files[`${n}/offers.yaml`] = Array.from({ length: DOCS }, (_, k) => ({
      kind: 'Offer',
      name: `o${k}`,
      spec: { project_id: 'p', name: `${n} ${k}` },
    }));
  }
  repo.push(files);
  const url = pg.url('soak');
  const t0 = Date.now();
  const agents = tokens.map((t) => agent(repo.bare, url, t));
  const made = (e: Emulator) => e.store.collections.get('offers')?.size ?? 0;
  await until('every configuration applied', () => emus.every((e) => made(e) === DOCS)).catch((e) => {
    for (const a of agents) console.error(a.logs().slice(-5));
    throw e;
  });
  const applied = emus.map((e) => Math.max(...e.writes().map((w) => w.at)) - t0);
  const cpuApplied = agents.map((a) => a.cpuSeconds().toFixed(1));
  const statuses = await until('settled shares', async () => {
    const all = await Promise.all(agents.map((a) => a.status()));
    return all.every((s) => s.replica?.live === AGENTS) && all;
  });
  const shares = statuses.map((s) => s.replica.share);
  const posts = emus.map((e) => e.writes().filter((w) => w.method === 'POST').length);
  console.log(
    `applied: ${CONFIGS} configurations x ${DOCS} offers by ${AGENTS} agents; last create ${(Math.max(...applied) / 1000).toFixed(1)} s after the start (2 intervals: ${(2 * INTERVAL_MS) / 1000} s); median ${(applied.sort((a, b) => a - b)[applied.length >> 1] / 1000).toFixed(1)} s`,
  );
  console.log(
    `CPU of the agents until then: ${cpuApplied.join(' / ')} s; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  console.log(`shares: ${shares.join(' / ')} (even: ${(CONFIGS / AGENTS).toFixed(2)})`);
  console.log(`creates: ${posts.filter((p) => p !== DOCS).length} configurations with POSTs != ${DOCS}`);

  const [victim, ...rest] = agents;
  const victimId = statuses[0].replica.id;
  const hers = (statuses[0].configurations as any[]).filter((c) => c.replica === victimId).map((c) => c.path);
  victim.child.kill('SIGKILL');
  const killedAt = Date.now();
  const taken = await until('its configurations run elsewhere', () => {
    const after = runs(rest).filter((r) => r.to - r.ms >= killedAt && r.ms >= 0);
    const first = hers.map((c) => Math.min(...after.filter((r) => r.c === c).map((r) => r.to - killedAt)));
    return first.every(Number.isFinite) && first;
  });
  console.log(
    `SIGKILL: ${hers.length} configurations of the killed agent each ran on another within ${(Math.max(...taken) / 1000).toFixed(1)} s (one interval: ${INTERVAL_MS / 1000} s)`,
  );

  for (const a of rest.slice(1)) a.child.kill('SIGTERM');
  const last = rest[0];
  await until('one agent holds all', async () => (await last.status()).replica?.share === CONFIGS);
  const since = Date.now();
  await until('two runs of each on the last agent', () => {
    const mine = runs([last]).filter((r) => r.to > since);
    return names.every((n) => mine.filter((r) => r.c === n).length >= 2);
  });

  const all = runs(agents);
  let overlaps = 0;
  for (const n of names) {
    const list = all.filter((r) => r.c === n).sort((a, b) => a.to - a.ms - (b.to - b.ms));
    for (let k = 1; k < list.length; k++) if (list[k].to - list[k].ms < list[k - 1].to) overlaps++;
  }
  const handovers = emus.map(
    (e) => e.calls().reduce<number[]>((r, c) => (r.at(-1) === c.caller ? r : [...r, c.caller!]), []).length - 1,
  );
  console.log(
    `one at a time: ${overlaps} overlapping runs of one configuration; calls passed between agents ${handovers.reduce((a, b) => a + b, 0)} times in all (${Math.max(...handovers)} at most for one configuration)`,
  );
  console.log(
    `RSS: peak ${last.peakMb().toFixed(0)} MB for the agent holding all ${CONFIGS} configurations (target 400); the others ${agents
      .slice(0, -1)
      .filter((a) => a !== last)
      .map((a) => a.peakMb().toFixed(0))
      .join(', ')} MB`,
  );
  last.child.kill('SIGTERM');
  await sleep(2000);
  for (const e of emus) await e.close();
  await pg.stop();
  removeTempDirs();
}

await main();
