// The fleet's bucket for file states: the runs on one machine whose states are in one directory share a small JSON
// file there (budget-HOST_PORT.json), read and rewritten under a lock file held for the few milliseconds of one
// lease (created exclusively; one older than STALE_LOCK_MS is a crashed holder's and is removed). No server to run.
import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBounded } from '../util/files.js';
import { allocate, parseBucket, type BucketDoc, type Grant, type LeaseAsk } from './allocate.js';
import type { BudgetStore } from './gate.js';

/** A lock file older than this is a crashed holder's: a live one holds it for one read and one write. */
const STALE_LOCK_MS = 2000;
/** How long a lease waits for the lock before the store counts as unreachable. */
const LOCK_WAIT_MS = 1500;
const MAX_BUCKET_BYTES = 1024 * 1024;

/** The bucket file of a platform's origin, in `dir` (the state's directory). */
export const bucketFile = (dir: string, origin: string) =>
  join(dir, `budget-${new URL(origin).host.replace(/[^A-Za-z0-9.-]/g, '_')}.json`);

export class FileBudgetStore implements BudgetStore {
  readonly name: string;
  roundTrips = 0;

  constructor(readonly path: string) {
    this.name = path;
  }

  read(): BucketDoc | undefined {
    try {
      const bytes = readBounded(this.path, MAX_BUCKET_BYTES);
      return bytes ? parseBucket(JSON.parse(bytes.toString('utf8'))) : undefined;
    } catch {
      return undefined; // none yet, or torn by a crash: an empty bucket
    }
  }

  async lease(ask: LeaseAsk): Promise<Grant> {
    this.roundTrips++;
    const unlock = await this.lock();
    try {
      const { doc, grant } = allocate(this.read(), ask, Date.now());
      const temp = `${this.path}.${process.pid}.tmp`;
      const fd = openSync(temp, 'w', 0o600);
      try {
        writeSync(fd, JSON.stringify(doc));
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.path);
      return grant;
    } finally {
      unlock();
    }
  }

  private async lock(): Promise<() => void> {
    const lock = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx', 0o600));
        return () => {
          try {
            unlinkSync(lock);
          } catch {
            /* taken for a crashed holder's after a stall: the next lease takes it again */
          }
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') mkdirSync(join(lock, '..'), { recursive: true });
        else if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`the lock file ${lock} was held for over ${LOCK_WAIT_MS} ms`);
      await sleep(2);
    }
  }

  async close(): Promise<void> {}
}
