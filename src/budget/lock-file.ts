// The file bucket's lock (file-store.ts): a lock file held for the few milliseconds of one read and one write,
// created exclusively and holding a token of its taker's own. One older than STALE_LOCK_MS is a crashed holder's and
// is taken over, that very file only (util/lock-aside.ts: moved aside, and put back when it is not the one judged,
// by its token and its time). The holder checks the lock is still its own right before it writes, and removes only
// its own: a holder stalled past STALE_LOCK_MS finds the lock taken over, writes nothing, and asks again.
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { readBounded } from '../util/files.js';
import type { Clock } from '../types.js';
import { systemClock } from '../util/clock.js';
import { createLockFile, moveStaleAside } from '../util/lock-aside.js';

/** A lock file older than this is a crashed holder's: a live one holds it for one read and one write. */
export const STALE_LOCK_MS = 2000;
/** How long a lease waits for the lock before the store counts as unreachable: longer than a crashed holder's lock
 *  takes to go stale, so that a lock left by a holder that died just now is taken over, not given up on. */
export const LOCK_WAIT_MS = STALE_LOCK_MS + 500;

/** Points where a test acts as another process between two steps. */
export interface LockSeams {
  /** a lock file was judged stale, and is about to be taken over */
  judgedStale?: () => void;
  /** the lock is taken, the bucket read; about to write */
  beforeWrite?: () => void;
  /** the clock that lock files' modification times are judged by, and the waits between tries run on (the
   *  system's by default; a test's moves on instead of waiting) */
  clock?: Clock;
}

export interface HeldLock {
  /** the lock file is still this taker's */
  holds(): boolean;
  /** removes the lock file if it is still this taker's */
  release(): void;
}

interface Found {
  token: string;
  mtimeMs: number;
}

function look(path: string): Found | undefined {
  let found: Found;
  try {
    const st = lstatSync(path); // the lock file itself: a link there is nobody's lock, and is not followed
    if (st.isSymbolicLink())
      throw new Error(`the lock file ${path} is a symbolic link, which tapedeck never makes: remove it`);
    found = { token: readBounded(path, 256)?.toString('utf8') ?? '', mtimeMs: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // gone meanwhile
    throw e;
  }
  return found;
}

/** Whether the lock file was made now with `token` in it (false: another holds it). */
function create(path: string, token: string): boolean {
  try {
    return createLockFile(path, token);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(dirname(path), { recursive: true });
    return createLockFile(path, token);
  }
}

const same = (a: Found | undefined, b: Found) => !!a && a.token === b.token && a.mtimeMs === b.mtimeMs;

export async function takeLock(path: string, seams: LockSeams = {}): Promise<HeldLock> {
  const token = randomUUID();
  const { clock = systemClock } = seams;
  const now = () => clock.now().getTime();
  const deadline = now() + LOCK_WAIT_MS;
  for (;;) {
    if (create(path, token)) {
      const holds = () => look(path)?.token === token;
      // Moved aside and removed only if it is this taker's (a check and a removal by path would race a takeover).
      const release = () => void (holds() && moveStaleAside(path, (aside) => look(aside)?.token === token));
      return { holds, release };
    }
    const found = look(path);
    if (found && now() - found.mtimeMs > STALE_LOCK_MS) {
      seams.judgedStale?.();
      if (moveStaleAside(path, (aside) => same(look(aside), found))) continue;
    }
    if (now() > deadline) throw new Error(`the lock file ${path} was held for over ${LOCK_WAIT_MS} ms`);
    await clock.timer(2).done;
  }
}
