// The fleet's bucket for file states: the runs on one machine whose states are in one directory share a small JSON
// file there (budget-HOST_PORT.json), read and rewritten under a lock file held for the few milliseconds of one
// lease (lock-file.ts: created exclusively with its taker's token; a crashed holder's is taken over). No server to run.
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readBounded } from '../util/files.js';
import { allocate, parseBucket, type BucketDoc, type Grant, type LeaseAsk } from './allocate.js';
import type { BudgetStore } from './gate.js';
import { takeLock, type LockSeams } from './lock-file.js';

const MAX_BUCKET_BYTES = 1024 * 1024;
/** Leases whose lock was taken over before they wrote (their process stalled), tried again before giving up. */
const ATTEMPTS = 3;

/** The bucket file of a platform's origin, in `dir` (the state's directory). */
export const bucketFile = (dir: string, origin: string) =>
  join(dir, `budget-${new URL(origin).host.replace(/[^A-Za-z0-9.-]/g, '_')}.json`);

export class FileBudgetStore implements BudgetStore {
  readonly name: string;
  roundTrips = 0;

  /** `seams`: where a test acts as another process (lock-file.ts) */
  constructor(
    readonly path: string,
    private readonly seams: LockSeams = {},
  ) {
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
    for (let attempt = 1; ; attempt++) {
      const lock = await takeLock(`${this.path}.lock`, this.seams);
      try {
        const { doc, grant } = allocate(this.read(), ask, Date.now());
        const temp = `${this.path}.${process.pid}.tmp`;
        const fd = openSync(temp, 'w', 0o600);
        try {
          writeSync(fd, JSON.stringify(doc));
        } finally {
          closeSync(fd);
        }
        this.seams.beforeWrite?.();
        // Taken over while this process stalled: another may have written since the read. Nothing is written.
        if (lock.holds()) {
          renameSync(temp, this.path);
          return grant;
        }
        rmSync(temp, { force: true });
        if (attempt >= ATTEMPTS) throw new Error(`the lock file ${this.path}.lock was taken over ${ATTEMPTS} times`);
      } finally {
        lock.release();
      }
    }
  }

  async close(): Promise<void> {}
}
