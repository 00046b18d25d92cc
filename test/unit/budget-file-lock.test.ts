// The file bucket's lock (src/budget/lock-file.ts, through file-store.ts), on real files: a lock file a crashed
// holder left is taken over; one that another taker made fresh after removing that stale one is not, even by a
// process that had judged the old one stale (two processes both deciding a lock is stale used to remove each other's
// fresh lock, and then both held it); a holder whose lock was taken over writes nothing and removes nothing of the
// other's.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileBudgetStore } from '../../src/budget/file-store.js';
import { LOCK_WAIT_MS, STALE_LOCK_MS } from '../../src/budget/lock-file.js';
import { leaseAsk } from '../helpers/budget.js';
import { VirtualClock } from '../helpers/clock.js';
import { tempDir } from '../helpers/tmp.js';

const ask = leaseAsk('a', { max_rps: 100 });

/** A bucket file's path in a directory of its own, and a lock file a crashed holder left there 10 s ago (by `clock`:
 *  a virtual clock's time is not the file system's). */
function staleLock(clock?: VirtualClock): { bucket: string; lock: string } {
  const dir = tempDir();
  mkdirSync(dir, { recursive: true });
  const bucket = join(dir, 'budget-x.json');
  const lock = `${bucket}.lock`;
  writeFileSync(lock, 'crashed-holder');
  const old = new Date((clock?.now() ?? new Date()).getTime() - 10_000);
  utimesSync(lock, old, old);
  return { bucket, lock };
}

/**
 * Another taker: it removes the stale lock and takes its own, fresh, as a second process would; with `clock`, it
 * holds it for longer than anyone waits (its time stays fresh to that clock, as a live holder's would).
 */
function anotherTakes(lock: string, clock?: VirtualClock): void {
  unlinkSync(lock);
  writeFileSync(lock, 'other-taker', { flag: 'wx' });
  if (clock) {
    const fresh = new Date(clock.now().getTime() + LOCK_WAIT_MS);
    utimesSync(lock, fresh, fresh);
  }
}

describe('the file bucket lock', () => {
  it('a lock its holder left when it crashed just now is waited for until stale, and taken over: no fallback', async () => {
    // A waiter that gave up before the lock went stale would count the store as unreachable and fall back to its
    // conservative rate for nothing (LOCK_WAIT_MS used to be shorter than STALE_LOCK_MS).
    const clock = new VirtualClock();
    const { bucket, lock } = staleLock(clock);
    const fresh = clock.now();
    utimesSync(lock, fresh, fresh);
    const grant = await new FileBudgetStore(bucket, { clock }).lease(ask);
    expect(grant.rate).toBeCloseTo(95);
    expect(clock.now().getTime() - fresh.getTime()).toBeGreaterThanOrEqual(STALE_LOCK_MS);
    expect(clock.now().getTime() - fresh.getTime()).toBeLessThanOrEqual(LOCK_WAIT_MS);
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock file a crashed holder left is taken over, and released after the lease', async () => {
    const { bucket, lock } = staleLock();
    const grant = await new FileBudgetStore(bucket).lease(ask);
    expect(grant.rate).toBeCloseTo(95);
    expect(existsSync(lock)).toBe(false);
    expect(JSON.parse(readFileSync(bucket, 'utf8')).holders.a.rate).toBeCloseTo(95);
  });

  it('judged stale, but taken fresh by another meanwhile: that lock is not removed, and waited for', async () => {
    const clock = new VirtualClock();
    const { bucket, lock } = staleLock(clock);
    let acted = false;
    const store = new FileBudgetStore(bucket, {
      judgedStale: () => {
        if (!acted) anotherTakes(lock, clock);
        acted = true;
      },
      clock,
    });
    // The other holds its lock throughout: this lease waits for it, and gives up without having written.
    await expect(store.lease(ask)).rejects.toThrow(/held for over/);
    expect(acted).toBe(true);
    expect(readFileSync(lock, 'utf8')).toBe('other-taker');
    expect(existsSync(bucket)).toBe(false);
  });

  it('released by the other meanwhile: the lease goes through once it is free', async () => {
    const { bucket, lock } = staleLock();
    let acted = false;
    const store = new FileBudgetStore(bucket, {
      judgedStale: () => {
        if (acted) return;
        acted = true;
        anotherTakes(lock);
        setTimeout(() => rmSync(lock, { force: true }), 50);
      },
    });
    expect((await store.lease(ask)).rate).toBeCloseTo(95);
    expect(existsSync(lock)).toBe(false);
  });

  it('a holder whose lock was taken over before it wrote (it stalled) writes nothing, and leaves the lock be', async () => {
    const clock = new VirtualClock();
    const { bucket, lock } = staleLock(clock);
    rmSync(lock);
    const store = new FileBudgetStore(bucket, {
      beforeWrite: () => !existsSync(bucket) && anotherTakes(lock, clock),
      clock,
    });
    await expect(store.lease(ask)).rejects.toThrow(/held for over/);
    expect(readFileSync(lock, 'utf8')).toBe('other-taker');
    expect(existsSync(bucket)).toBe(false);
  });

  it('a lock file that is a symbolic link is refused as such: neither followed, waited for nor taken over', async () => {
    const { bucket, lock } = staleLock();
    const target = `${lock}.target`;
    renameSync(lock, target);
    symlinkSync(target, lock);
    await expect(new FileBudgetStore(bucket).lease(ask)).rejects.toThrow(/is a symbolic link.*remove it/);
    expect(lstatSync(lock).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('crashed-holder');
  });
});
