// The state as a file (the default): one machine, a lock file beside it, no history (git keeps a committed
// file's). Reads and writes are synchronous, as they always were: a write is done when save() returns.
import { existsSync, statSync } from 'node:fs';
import { UserError } from '../errors.js';
import { readBounded, writePrivateFile } from '../util/files.js';
import type { HistoryEntry, StateBackend, StateRefs } from './backend.js';
import { stateText } from './document.js';
import { acquireLock, holdsLock } from './lock.js';
import type { StateData } from './data.js';

/** Far above any real state (100,000 resources with their fields), and a bound for a path that never ends. */
export const MAX_STATE_BYTES = 256 * 1024 * 1024;

/** The file holds more than MAX_STATE_BYTES. */
class TooBig extends Error {}

/** Which file was there: a write by anyone else replaces it (temp file and rename) or changes its size or time. */
const fingerprint = (file: string): string => {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'none';
  }
};

export class FileBackend implements StateBackend {
  readonly label: string;
  private release: (() => void) | undefined;
  /** the file as read (or as this run last wrote it): a first write finding another one there is refused */
  private seen: string | undefined;

  constructor(readonly name: string) {
    this.label = `state file ${name}`;
  }

  readSync(): { text?: string; version: number } {
    this.seen = fingerprint(this.name);
    if (!existsSync(this.name)) return { version: 0 };
    return { text: this.text(), version: 0 };
  }

  /** The state as parsed JSON (`parse` throws a SyntaxError where it is not JSON); no `parse`: there is no file. */
  readParsed(): { parse?: () => unknown; version: number } {
    this.seen = fingerprint(this.name);
    if (!existsSync(this.name)) return { version: 0 };
    return { parse: () => JSON.parse(this.text()), version: 0 };
  }

  private text(): string {
    let bytes: Buffer | undefined;
    try {
      bytes = readBounded(this.name, MAX_STATE_BYTES);
    } catch (e) {
      throw this.unreadable(e);
    }
    if (!bytes) throw this.unreadable(new TooBig());
    return bytes.toString('utf8');
  }

  private unreadable(e: unknown): UserError {
    if (e instanceof TooBig)
      return new UserError(`state file ${this.name} is over ${MAX_STATE_BYTES} bytes: that is not a state file`, {
        code: 'E_STATE_INVALID',
      });
    return new UserError(`cannot read state file ${this.name}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, {
      code: 'E_STATE_INVALID',
    });
  }

  async read(): Promise<{ text?: string; version: number }> {
    return this.readSync();
  }

  /**
   * Atomic replace: a crash at any moment leaves the old file or the new one, never a torn one. The first write
   * checks that the file is still the one read: another writer's (one that ignored the lock) is never overwritten.
   */
  write(data: StateData, _refs: StateRefs, version: number): number {
    if (version === 0 && this.seen !== undefined && fingerprint(this.name) !== this.seen) {
      throw new UserError(
        `the state file ${this.name} was written by another run since this one read it; nothing was written (run again)`,
        { code: 'E_STATE_CONFLICT' },
      );
    }
    writePrivateFile(this.name, stateText(data));
    this.seen = fingerprint(this.name);
    return version + 1;
  }

  async lock(timeoutMs: number): Promise<void> {
    this.release ??= await acquireLock(this.name, timeoutMs);
  }

  lockLost(): undefined {
    return undefined;
  }

  onLockLost(): void {}

  /** The lock file still names this process (not removed by hand, nor taken over by another run). */
  async checkLock(): Promise<void> {
    if (this.release && !holdsLock(this.name))
      throw new UserError(
        `the lock file ${this.name}.lock no longer names this run (removed, or taken by another run); nothing more is written`,
        { code: 'E_LOCKED' },
      );
  }

  async history(): Promise<HistoryEntry[]> {
    throw new UserError(
      `the state file ${this.name} keeps no history: only a database state does (--state postgres://…); commit the file to keep its versions in git (git log -p ${this.name})`,
    );
  }

  async version(): Promise<string | undefined> {
    await this.history();
    return undefined;
  }

  async close(): Promise<void> {
    this.release?.();
    this.release = undefined;
  }
}
