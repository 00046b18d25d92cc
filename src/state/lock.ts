// A lock around writes to one environment's state: a lock file created exclusively next to the state file.
// A second holder fails at once naming the first (host, pid, since), or waits up to --lock-timeout. A lock whose
// holder on this same host is provably gone is taken over; one held on another host never is. The lock names its
// holder by more than its pid, which is reused (a restarted container is PID 1 again, under the same host name): a
// random run id, the process's start time, the boot and the pid namespace (process-identity.ts). A holder in another
// pid namespace of this host (another container, or this one before it restarted) cannot be looked at: it
// refreshes its lock file every few seconds, and is gone once the file has gone unrefreshed for much longer. A lock
// file that cannot be read (empty or torn: its taker crashed between creating and writing it) is taken over once
// it is old enough that no live taker can still be writing it.
import { lstatSync, readlinkSync, type Stats, utimesSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { UserError } from '../errors.js';
import { readBounded } from '../util/files.js';
import { createLockFile, moveStaleAside } from '../util/lock-aside.js';
import { startedAt, thisProcess, type ProcessIdentity } from './process-identity.js';

/** Who holds a lock; one written by an older tapedeck names only the host, the pid and since. */
export interface LockHolder extends Partial<ProcessIdentity> {
  host: string;
  pid: number;
  since: string;
}

/** How often a holder refreshes its lock file (its mtime), and how long unrefreshed makes one a dead holder's. */
export const REFRESH_MS = 5_000;
export const UNREFRESHED_STALE_MS = 30_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A live taker writes its lock file right after creating it: one still unreadable after this is a crash's. */
export const UNREADABLE_STALE_MS = 5_000;

/** A lock file as found: its holder if it can be read, and which file it is (a taker may replace it meanwhile). */
interface Found {
  holder?: LockHolder;
  ino: number;
  mtimeMs: number;
}

function readHolder(path: string): LockHolder | undefined {
  try {
    // A holder is a line of JSON; anything longer (a path that never ends) is unreadable, not waited for.
    const h = JSON.parse(readBounded(path, 4096)?.toString('utf8') ?? '');
    return typeof h.host === 'string' && Number.isInteger(h.pid) ? h : undefined;
  } catch {
    return undefined;
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return 'somewhere unreadable';
  }
}

function look(path: string): Found | undefined {
  let st: Stats;
  try {
    st = lstatSync(path); // the lock file itself, also when it is a link
  } catch (e) {
    // Gone since it was found: the caller tries again. Anything else would make that a busy loop.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`cannot read lock file ${path}: ${(e as NodeJS.ErrnoException).code}`, {
      code: 'E_STATE_BACKEND',
    });
  }
  // tapedeck makes its lock files itself, never as links: a link there is nobody's lock (neither waited for nor
  // taken over as stale, which would follow it), and what it leads to is not read.
  if (st.isSymbolicLink())
    throw new UserError(
      `lock file ${path} is a symbolic link (to ${linkTarget(path)}), which tapedeck never makes: remove it`,
      { code: 'E_STATE_BACKEND' },
    );
  return { holder: readHolder(path), ino: st.ino, mtimeMs: st.mtimeMs };
}

/** Whether the holder of a lock file found (last refreshed at `mtimeMs`) is provably gone. */
export function holderGone(h: LockHolder, mtimeMs: number): boolean {
  if (h.host !== hostname()) return false; // another machine's processes cannot be seen from here
  const me = thisProcess();
  if (h.boot && me.boot && h.boot !== me.boot) return true; // this machine has restarted since
  if (h.pidns && me.pidns && h.pidns !== me.pidns) return Date.now() - mtimeMs > UNREFRESHED_STALE_MS;
  // Within one pid namespace a pid is one process at a time: this one's own pid names an earlier process.
  if (h.pid === process.pid) return h.run !== me.run;
  if (!alive(h.pid)) return true;
  const now = h.started && startedAt(h.pid);
  return !!now && now !== h.started; // the pid is another process's now
}

const stale = (f: Found) => (f.holder ? holderGone(f.holder, f.mtimeMs) : Date.now() - f.mtimeMs > UNREADABLE_STALE_MS);

function tryCreate(path: string, me: LockHolder): boolean {
  try {
    return createLockFile(path, JSON.stringify(me));
  } catch (e) {
    throw new UserError(`cannot create lock file ${path}: ${(e as NodeJS.ErrnoException).code}`, {
      code: 'E_STATE_BACKEND',
    });
  }
}

/** Moves a stale lock aside (util/lock-aside.ts: only that very file, judged again once moved), then it can be taken. */
function takeOverStale(path: string, found: Found): boolean {
  if (!stale(found)) return false;
  // Not the stale lock any more when a live process took it in between: then it is put back where it was.
  return moveStaleAside(path, (aside) => {
    const moved = look(aside);
    return !moved || (moved.ino === found.ino && stale(moved));
  });
}

function holderShown(h: LockHolder): string {
  const me = thisProcess();
  const elsewhere =
    h.host === hostname() && h.pidns && me.pidns && h.pidns !== me.pidns
      ? `, in another pid namespace of this host (a container): taken over once unrefreshed for ${UNREFRESHED_STALE_MS / 1000} s`
      : '';
  return `host ${h.host}, pid ${h.pid}, since ${h.since}${elsewhere}`;
}

export async function acquireLock(statePath: string, timeoutMs = 0, refreshMs = REFRESH_MS): Promise<() => void> {
  const path = `${statePath}.lock`;
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    // A file where the state's directory should be (--state FILE/x.json): the user's to fix, not a crash.
    throw new UserError(`cannot create lock file ${path}: ${(e as NodeJS.ErrnoException).code}`, {
      code: 'E_STATE_BACKEND',
    });
  }
  const me: LockHolder = { host: hostname(), pid: process.pid, since: new Date().toISOString(), ...thisProcess() };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (tryCreate(path, me)) break;
    const found = look(path);
    if (!found || takeOverStale(path, found)) continue; // gone meanwhile, or stale and moved aside: try again
    const holder = found.holder;
    if (Date.now() >= deadline) {
      const who = holder ? holderShown(holder) : 'an unreadable lock file';
      throw new UserError(
        `the state ${statePath} is locked by another apply (${who}); wait for it, pass --lock-timeout SECONDS, or remove ${path} if that process is gone`,
        { code: 'E_LOCKED' },
      );
    }
    await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
  }
  // Refreshed while held: a taker in another pid namespace can tell a live holder from a dead one only by it.
  const refresh = setInterval(() => {
    try {
      if (holdsLock(statePath)) utimesSync(path, new Date(), new Date());
    } catch {
      /* gone or unwritable: checkLock says so before the next write */
    }
  }, refreshMs);
  refresh.unref();
  return () => {
    clearInterval(refresh);
    // Moved aside and removed only if the file moved names this run: a check, then a removal by path, would remove
    // the lock of a taker that came in between (after this holder stalled past the stale time).
    if (holdsLock(statePath)) moveStaleAside(path, (aside) => mine(readHolder(aside)));
  };
}

/** Whether a lock file's holder is this process (its run id: the pid alone may be an earlier one's). */
const mine = (holder: LockHolder | undefined) =>
  !!holder && holder.pid === process.pid && holder.host === hostname() && holder.run === thisProcess().run;

/** Whether the lock file of `statePath` names this process. */
export function holdsLock(statePath: string): boolean {
  return mine(readHolder(`${statePath}.lock`));
}
