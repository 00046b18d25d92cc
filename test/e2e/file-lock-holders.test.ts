// Who holds a file state's lock, told by more than a pid: a lock naming this process's own pid (a restarted
// container is PID 1 again, under the same host name) or a pid reused by another process is an earlier process's and
// is taken over; a live holder is refused, named, and its lock file left as it is. The real CLI in-process against
// the emulator, real processes as holders, the lock files as an earlier process would have left them. Start times,
// boot ids and pid namespaces come from Linux's /proc, where CI runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { acquireLock, UNREFRESHED_STALE_MS } from '../../src/state/lock.js';
import { bootId, pidNamespace, startedAt, thisProcess } from '../../src/state/process-identity.js';
import { until } from '../helpers/agent.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await emu?.close();
  emu = child = undefined;
});

const since = '2026-01-01T00:00:00.000Z';
/** A project whose apply writes one Vod, with a lock file holding `holder` (written as an earlier process would). */
async function lockedBy(holder: object) {
  emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
  const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
  const lock = join(dir, '.tapedeck/default.state.json.lock');
  mkdirSync(join(dir, '.tapedeck'), { recursive: true });
  writeFileSync(lock, JSON.stringify(holder));
  const apply = () => runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir });
  return { dir, lock, apply };
}

/** This host and process namespace, as a holder in it records them; `run` is not this process's. */
const here = (pid: number, extra: object = {}) => ({
  host: hostname(),
  pid,
  since,
  run: 'an-earlier-run',
  boot: bootId(),
  pidns: pidNamespace(),
  ...extra,
});

/** A live process of this host: a real holder. */
async function liveProcess(): Promise<number> {
  child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return until('the process to start', () => (child!.pid && startedAt(child!.pid) ? child!.pid : undefined));
}

describe('a file lock naming a pid that is not its holder any more', () => {
  it.each([
    ['an older tapedeck', { host: hostname(), pid: process.pid, since }],
    ['an earlier process (another run id and start)', here(process.pid, { started: '1' })],
  ])("naming this process's own pid, written by %s: taken over", async (_, holder) => {
    const { lock, apply } = await lockedBy(holder);
    const run = await apply();
    expect(run.code, run.stderr).toBe(0);
    expect(emu!.store.collections.get('vods')?.get('v1')?.name).toBe('New');
    expect(existsSync(lock)).toBe(false);
  });

  it('naming a live process by its pid and start time: refused, named; the same pid started at another time: taken over', async () => {
    const pid = await liveProcess();
    const live = await lockedBy(here(pid, { started: startedAt(pid) }));
    const refused = await live.apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is locked by another apply (host ${hostname()}, pid ${pid}, since ${since})`);
    expect(JSON.parse(readFileSync(live.lock, 'utf8')).pid).toBe(pid);
    expect(emu!.store.collections.get('vods')?.get('v1')?.name).toBe('Old');
    await emu!.close();

    const reused = await lockedBy(here(pid, { started: String(Number(startedAt(pid)) - 1) }));
    const run = await reused.apply();
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(reused.lock)).toBe(false);
  });

  it('written before this host restarted (another boot id): taken over, though its pid is alive', async () => {
    const pid = await liveProcess();
    const { lock, apply } = await lockedBy(here(pid, { started: startedAt(pid), boot: 'an-earlier-boot' }));
    expect((await apply()).code).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('held in another pid namespace of this host (a container): refused while refreshed, taken over once not', async () => {
    const { lock, apply } = await lockedBy(here(process.pid, { pidns: 'pid:[1]', started: '1' }));
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `pid ${process.pid}, since ${since}, in another pid namespace of this host (a container): taken over once unrefreshed for 30 s`,
    );
    const old = new Date(Date.now() - UNREFRESHED_STALE_MS - 1000);
    utimesSync(lock, old, old);
    const run = await apply();
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('is refreshed by its holder while held, and names the holder by its run id', async () => {
    const dir = testdir({});
    const state = join(dir, 'x.state.json');
    const release = await acquireLock(state, 0, 20);
    try {
      const recorded = JSON.parse(readFileSync(`${state}.lock`, 'utf8'));
      expect(recorded).toMatchObject({ host: hostname(), pid: process.pid, run: thisProcess().run });
      const old = new Date(Date.now() - 60_000);
      utimesSync(`${state}.lock`, old, old);
      await until('the lock refreshed', () => statSync(`${state}.lock`).mtimeMs > old.getTime() + 30_000);
    } finally {
      release();
    }
    expect(existsSync(`${state}.lock`)).toBe(false);
  });
});
