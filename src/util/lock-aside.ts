// Taking over a lock file judged stale, when several processes may judge it at once. Removing the path judged is
// not safe: another taker may have removed the stale file and made its own fresh lock there in between, and that
// one would go. So the file is first moved aside (a rename: of several takers only one moves any one file), the file
// moved is judged again, and put back when it is not the stale one (a fresh lock, taken in between). Also how a
// lock file is made: exclusively, with its taker's mark in it. Shared by the state's lock and the budget's.
import { closeSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { UserError } from '../errors.js';

/**
 * Moves the lock file at `path` aside, deletes it when `theStaleOne(aside)` says the file moved is the one judged
 * stale, and else puts it back. Returns whether the lock may be tried again at once (the stale one is gone, or
 * another taker moved it first); false when a live holder's lock was found (and put back). A rename that fails for
 * another reason than the file being gone (a read-only mount, a directory not writable) is an error: the loops that
 * call this are synchronous, so "try again at once" would spin for ever, past any deadline or signal. `rename` is
 * the file system's own but in tests.
 */
export function moveStaleAside(
  path: string,
  theStaleOne: (aside: string) => boolean,
  rename: (from: string, to: string) => void = renameSync,
): boolean {
  const aside = `${path}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    rename(path, aside);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true; // someone else moved it first: just try again
    throw new UserError(`cannot move the stale lock file ${path} aside (${code ?? 'error'})`, {
      code: 'E_STATE_BACKEND',
    });
  }
  let stale: boolean;
  try {
    stale = theStaleOne(aside);
  } catch (e) {
    putBack(aside, path); // not judged: it may be a live holder's
    throw e;
  }
  if (stale) {
    rmSync(aside, { force: true });
    return true;
  }
  putBack(aside, path);
  return false;
}

/** A live holder's lock moved aside by mistake, back in its place, unless a third taker made one there meanwhile. */
function putBack(aside: string, path: string): void {
  try {
    // A link never replaces a lock made in between (its holder keeps it; the one moved finds it is not its own).
    linkSync(aside, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') {
      try {
        renameSync(aside, path); // a file system without hard links
        return;
      } catch {
        /* gone: nothing to put back */
      }
    }
  }
  rmSync(aside, { force: true });
}

/**
 * Whether the lock file at `path` was made now, exclusively, holding `text` (its taker's mark); false: it exists (a
 * holder has it). Any other failure is thrown as it is, for the caller to name.
 */
export function createLockFile(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}
