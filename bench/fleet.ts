// The fleet budget's rows (issue 45): eight tapedeck processes at once (4 configurations × 2 environments of one
// platform), each planning N one-GET documents, against one emulator limiting every request to 200 a second without
// X-RateLimit headers: without a budget (each paces itself alone, as before) and with one (max_rps 200, the states in
// one PostgreSQL database); `share: 0.5` of a published limit of 200 beside a client that is not tapedeck sending
// 100 a second; the database's round trips per request; and a lone process with and without a budget. Each process
// is the built CLI (dist/cli/bin.js); requests are counted by the emulator (its call log). --fleet-docs N scales
// the runs down for a smoke run (the full one is 1,000).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { forkEmulator, type Emulator } from './harness.js';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist/cli/bin.js');
export const FLEET_LIMIT = 200;
const MEMBERS = ['a', 'b', 'c', 'd'].flatMap((c) => [`${c}-prod`, `${c}-stage`]);

type Split = { busiest: number; calls: number; refused: number };
interface Finished {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Where the rows stand, on stderr (the fleet rows take minutes). */
const progress = (line: string) => process.stderr.write(line);

/** One tapedeck process, its wall time from the fleet's start. */
function plan(dir: string, env: string, url: string, t0: number): Promise<Finished> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, 'plan', dir, '--env', env, '--base-url', url, '--json'], {
      env: { ...process.env, TAPEDECK_TOKEN: 'dev-token', CI: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr, ms: Math.round(performance.now() - t0) }));
  });
}

/** The seed: N Vods per member, read by one GET each; and a few for the other client. */
export function fleetSeed(n: number): string {
  const vods = [...MEMBERS, 'other'].flatMap((m) =>
    Array.from({ length: m === 'other' ? 10 : n }, (_, i) => ({ id: `${m}-${i}`, project_id: 'p', name: `Vod ${i}` })),
  );
  return JSON.stringify({ vods });
}

/** 4 configurations of 2 environments each: every environment its own documents (chosen by `environments:`). */
function configurations(n: number, budget: object | undefined, state: (base: string, env: string) => string) {
  const base = mkdtempSync(join(tmpdir(), 'tapedeck-fleet-'));
  const dirs = new Map<string, string>();
  for (const c of ['a', 'b', 'c', 'd']) {
    const dir = mkdtempSync(join(base, `${c}-`));
    const envs = Object.fromEntries(
      ['prod', 'stage'].map((e) => [`${c}-${e}`, { ...(budget ? { budget } : {}), state: state(base, `${c}-${e}`) }]),
    );
    writeFileSync(join(dir, 'tapedeck.yaml'), stringify({ version: 1, name: `fleet-${c}`, environments: envs }));
    for (const e of ['prod', 'stage']) {
      const m = `${c}-${e}`;
      const docs = Array.from({ length: n }, (_, i) => ({
        kind: 'Vod',
        name: `${m}-${i}`,
        id: `${m}-${i}`,
        environments: [m],
        spec: { name: `Vod ${i}` },
      }));
      writeFileSync(join(dir, `${m}.yaml`), docs.map((d) => stringify(d)).join('---\n'));
      dirs.set(m, dir);
    }
  }
  return { base, dirs };
}

/** The eight at once; the last to finish, the 429 share, the round trips. */
async function fleetRun(
  emu: Emulator,
  members: string[],
  dirs: Map<string, string>,
  limits: string[],
  headers: boolean,
) {
  await emu.ask({ rateLimits: limits, headers });
  progress(`fleet: ${members.length} process(es) at once\n`);
  const t0 = performance.now();
  const runs = await Promise.all(members.map((m) => plan(dirs.get(m)!, m, emu.url, t0)));
  for (const r of runs) if (r.code !== 0) throw new Error(`a fleet member failed:\n${r.stderr.slice(0, 2000)}`);
  const split = await emu.ask<{ matching: Split; others: Split; dropped: number }>({ split: '/other-' });
  const trips = runs.reduce((s, r) => s + (JSON.parse(r.stdout).budget?.round_trips ?? 0), 0);
  const waited = runs.reduce((s, r) => s + (JSON.parse(r.stdout).budget?.waited_ms ?? 0), 0);
  return { runs, last_ms: Math.max(...runs.map((r) => r.ms)), split, trips, waited };
}

export async function fleetRows(emu: Emulator, n: number, log: (s: string) => void) {
  progress('fleet: starting PostgreSQL\n');
  const started = await startPostgres();
  if (!started.ok) throw new Error(`the fleet rows need PostgreSQL: ${started.reason}`);
  const pg: TestPostgres = started.pg;
  const made: string[] = [];
  // The states in the database (with a budget: one bucket), or each in a file of its own.
  const setup = (budget: object | undefined, schema: string, database = !!budget) => {
    const { base, dirs } = configurations(n, budget, (base, env) =>
      database ? pg.url(schema) : join(base, `${env}.state.json`),
    );
    made.push(base);
    return dirs;
  };
  try {
    const floor = ((MEMBERS.length * n) / FLEET_LIMIT) * 1000;
    const alone = await fleetRun(emu, MEMBERS, setup(undefined, 'alone'), [String(FLEET_LIMIT)], false);
    const budgeted = await fleetRun(
      emu,
      MEMBERS,
      setup({ max_rps: FLEET_LIMIT }, 'fleet'),
      [String(FLEET_LIMIT)],
      false,
    );
    // share 0.5 of a published 200, beside another client at 100 a second.
    await emu.ask({ rateLimits: [String(FLEET_LIMIT)], headers: true });
    const other = otherClient(emu.url, FLEET_LIMIT / 2);
    progress('fleet: 4 processes with share 0.5 beside another client\n');
    const shareDirs = setup({ share: 0.5 }, 'share');
    const t0 = performance.now();
    const shared = await Promise.all(MEMBERS.slice(0, 4).map((m) => plan(shareDirs.get(m)!, m, emu.url, t0)));
    await other.stop();
    for (const r of shared) if (r.code !== 0) throw new Error(`a share run failed:\n${r.stderr.slice(0, 2000)}`);
    const share = await emu.ask<{ matching: Split; others: Split }>({ split: '/other-' });
    // The cost of coordination alone: one process, its state in the database both times, a budget that does not
    // bind (above what it can send), against the emulator without a limit.
    const loneNone = await fleetRun(emu, [MEMBERS[0]], setup(undefined, 'lone', true), [], false);
    const loneBudget = await fleetRun(emu, [MEMBERS[0]], setup({ max_rps: 5000 }, 'lone'), [], false);
    const row = (name: string, r: Awaited<ReturnType<typeof fleetRun>>) => {
      const total = r.split.others.calls;
      return {
        step: name,
        last_ms: r.last_ms,
        floor_ms: Math.round(floor * (r.runs.length / MEMBERS.length)),
        served: total - r.split.others.refused,
        answered_429: r.split.others.refused,
        share_429: +(r.split.others.refused / Math.max(1, total)).toFixed(4),
        busiest_second: r.split.others.busiest,
        db_round_trips: r.trips,
        requests_per_round_trip: r.trips ? +(total / r.trips).toFixed(1) : null,
        waited_ms: r.waited,
      };
    };
    const rows = [
      row(`8×${n}, no budget`, alone),
      row(`8×${n}, budget (PostgreSQL)`, budgeted),
      row(`lone ${n}, no limit, no budget`, loneNone),
      row(`lone ${n}, no limit, budget`, loneBudget),
    ];
    const shareRow = {
      step: `4×${n}, share 0.5 + other 100/s`,
      fleet_busiest_second: share.others.busiest,
      fleet_429: share.others.refused,
      other_calls: share.matching.calls,
      other_429: share.matching.refused,
      last_ms: Math.max(...shared.map((r) => r.ms)),
    };
    const line = (cells: (string | number | null)[]) =>
      `${String(cells[0]).padEnd(30)} ${cells
        .slice(1)
        .map((c) => String(c ?? '-').padStart(7))
        .join(' ')}\n`;
    log(
      `\nfleet budget (emulator at ${FLEET_LIMIT} rps, no X-RateLimit headers; floor: the requests over the rate):\n`,
    );
    log(line(['step', 'last ms', 'floor', 'served', '429s', 'share', 'max/1s', 'trips', 'req/trip']));
    for (const r of rows)
      log(
        line([
          r.step,
          r.last_ms,
          r.floor_ms,
          r.served,
          r.answered_429,
          `${(r.share_429 * 100).toFixed(2)}%`,
          r.busiest_second,
          r.db_round_trips,
          r.requests_per_round_trip,
        ]),
      );
    log(
      `${shareRow.step}: fleet's busiest second ${shareRow.fleet_busiest_second} (429s ${shareRow.fleet_429}); the other client ${shareRow.other_calls} requests, ${shareRow.other_429} of them 429\n`,
    );
    const [none, fleet, loneA, loneB] = rows;
    log(
      `without a budget the last process finished at ${(none.last_ms / fleet.last_ms).toFixed(2)}× the budgeted fleet's time\n`,
    );
    const targets = {
      fleet_budget_under_1pct_429: fleet.share_429 < 0.01,
      fleet_budget_last_within_1_15x_floor: fleet.last_ms <= 1.15 * fleet.floor_ms,
      fleet_share_never_above_half: shareRow.fleet_busiest_second <= FLEET_LIMIT / 2,
      fleet_share_other_client_no_429: shareRow.other_429 === 0,
      fleet_at_most_1_round_trip_per_25_requests: fleet.db_round_trips * 25 <= fleet.served + fleet.answered_429,
      lone_budget_within_5pct: loneB.last_ms <= 1.05 * loneA.last_ms,
    };
    return { rows: [...rows, shareRow], targets };
  } finally {
    await pg.stop();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  }
}

/** A client that is not tapedeck: `rps` GETs a second, evenly, until stopped. */
function otherClient(url: string, rps: number) {
  let i = 0;
  const sent: Promise<unknown>[] = [];
  const headers = { authorization: 'Bearer dev-token' };
  const timer = setInterval(() => {
    sent.push(fetch(`${url}/streaming/vods/v1/other-${i++ % 10}`, { headers }).then((r) => r.text()));
  }, 1000 / rps);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.allSettled(sent);
    },
  };
}

/** The fleet rows on an emulator of their own at `latency` (bench/run.ts: in the full run, and alone with --fleet). */
export async function fleetBench(n: number, latency: number, log: (s: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-fleet-seed-'));
  const emu = await forkEmulator(fleetSeed(n), dir, latency);
  try {
    return await fleetRows(emu, n, log);
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
