// A lock around writes to one environment's state: a lock file created exclusively next to the state file.
// A second holder fails at once naming the first (host, pid, since), or waits up to --lock-timeout. A lock left by
// a process that died on this same host is taken over; one held on another host never is. Nor is a lock file
// that cannot be read (empty or torn: its taker crashed between creating and writing it) once it is old enough
// that no live taker can still be writing it.
import { closeSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { UserError } from '../errors.js';
import { readBounded } from '../util/files.js';

export interface LockHolder {
  host: string;
  pid: number;
  since: string;
}

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

function look(path: string): Found | undefined {
  try {
    const { ino, mtimeMs } = lstatSync(path); // the lock file itself, also when it is a link
    return { holder: readHolder(path), ino, mtimeMs };
  } catch (e) {
    // Gone since it was found: the caller tries again. Anything else would make that a busy loop.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`cannot read lock file ${path}: ${(e as NodeJS.ErrnoException).code}`, {
      code: 'E_STATE_BACKEND',
    });
  }
}

const stale = (f: Found) =>
  f.holder ? f.holder.host === hostname() && !alive(f.holder.pid) : Date.now() - f.mtimeMs > UNREADABLE_STALE_MS;

function tryCreate(path: string, me: LockHolder): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UserError(`cannot create lock file ${path}: ${(e as NodeJS.ErrnoException).code}`, {
      code: 'E_STATE_BACKEND',
    });
  }
}

/** Moves a stale lock aside (a rename, so only one of several takers wins), then it can be taken. */
function takeOverStale(path: string, found: Found): boolean {
  if (!stale(found)) return false;
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return true; // someone else moved it first: just try again
  }
  const moved = look(aside);
  if (moved && (moved.ino !== found.ino || !stale(moved))) {
    // Not the stale lock any more (a live process took it in between): put it back where it was.
    try {
      renameSync(aside, path);
    } catch {
      /* it is gone: nothing to restore */
    }
    return false;
  }
  unlinkSync(aside);
  return true;
}

export async function acquireLock(statePath: string, timeoutMs = 0): Promise<() => void> {
  const path = `${statePath}.lock`;
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    // A file where the state's directory should be (--state FILE/x.json): the user's to fix, not a crash.
    throw new UserError(`cannot create lock file ${path}: ${(e as NodeJS.ErrnoException).code}`, {
      code: 'E_STATE_BACKEND',
    });
  }
  const me: LockHolder = { host: hostname(), pid: process.pid, since: new Date().toISOString() };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (tryCreate(path, me)) break;
    const found = look(path);
    if (!found || takeOverStale(path, found)) continue; // gone meanwhile, or stale and moved aside: try again
    const holder = found.holder;
    if (Date.now() >= deadline) {
      const who = holder ? `host ${holder.host}, pid ${holder.pid}, since ${holder.since}` : 'an unreadable lock file';
      throw new UserError(
        `the state ${statePath} is locked by another apply (${who}); wait for it, pass --lock-timeout SECONDS, or remove ${path} if that process is gone`,
        { code: 'E_LOCKED' },
      );
    }
    await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
  }
  return () => {
    if (holdsLock(statePath)) unlinkSync(path);
  };
}

/** Whether the lock file of `statePath` names this process. */
export function holdsLock(statePath: string): boolean {
  const holder = readHolder(`${statePath}.lock`);
  return !!holder && holder.pid === process.pid && holder.host === hostname();
}
