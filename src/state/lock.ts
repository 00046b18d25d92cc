// A lock around writes to one environment's state: a lock file created exclusively next to the state file.
// A second holder fails at once naming the first (host, pid, since), or waits up to --lock-timeout. A lock left by
// a process that died on this same host is taken over; one held on another host never is.
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { UserError } from '../errors.js';

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

function readHolder(path: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8'));
    return typeof h.host === 'string' && Number.isInteger(h.pid) ? h : undefined;
  } catch {
    return undefined;
  }
}

function tryCreate(path: string, me: LockHolder): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UserError(`cannot create lock file ${path}: ${(e as NodeJS.ErrnoException).code}`);
  }
}

/** Moves a dead holder's lock aside (a rename, so only one of several takers wins), then it can be taken. */
function takeOverStale(path: string, holder: LockHolder): boolean {
  if (holder.host !== hostname() || alive(holder.pid)) return false;
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return true; // someone else moved it first: just try again
  }
  const moved = readHolder(aside);
  if (moved && (moved.pid !== holder.pid || moved.host !== holder.host)) {
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
  mkdirSync(dirname(path), { recursive: true });
  const me: LockHolder = { host: hostname(), pid: process.pid, since: new Date().toISOString() };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (tryCreate(path, me)) break;
    const holder = readHolder(path);
    if (holder && takeOverStale(path, holder)) continue;
    if (Date.now() >= deadline) {
      const who = holder ? `host ${holder.host}, pid ${holder.pid}, since ${holder.since}` : 'an unreadable lock file';
      throw new UserError(`the state ${statePath} is locked by another apply (${who}); wait for it, pass --lock-timeout SECONDS, or remove ${path} if that process is gone`);
    }
    await sleep(Math.min(200, Math.max(10, deadline - Date.now())));
  }
  return () => {
    const holder = readHolder(path);
    if (holder && holder.pid === me.pid && holder.host === me.host) unlinkSync(path);
  };
}
