// Taking over a stale lock file by moving it aside (util/lock-aside.ts), on real files. A rename that fails for good
// (a read-only mount, a directory no longer writable) is an error, never "someone moved it first, try again": the
// lock loops around it are synchronous, so that answer would spin for ever without sleeping or seeing a signal.
// A judgement that throws puts the file back first: a live holder's lock never just disappears.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveStaleAside } from '../../src/util/lock-aside.js';
import { tempDir } from '../helpers/tmp.js';

const failing = (code: string) => () => {
  throw Object.assign(new Error(code), { code });
};

describe('moving a stale lock aside', () => {
  it.each(['EROFS', 'EACCES', 'EPERM'])('a rename failing with %s is an error naming it; the lock stays', (code) => {
    const path = join(tempDir('lock-aside'), 'x.lock');
    writeFileSync(path, 'held');
    expect(() => moveStaleAside(path, () => true, failing(code))).toThrow(
      new RegExp(`cannot move the stale lock file .*x\\.lock aside \\(${code}\\)`),
    );
    expect(readFileSync(path, 'utf8')).toBe('held');
  });

  it('a lock already moved by another taker (ENOENT): try again at once', () => {
    const path = join(tempDir('lock-aside'), 'x.lock');
    expect(moveStaleAside(path, () => true)).toBe(true);
  });

  it('a judgement that throws puts the file back before the error goes on', () => {
    const path = join(tempDir('lock-aside'), 'x.lock');
    writeFileSync(path, 'a live holder');
    expect(() =>
      moveStaleAside(path, () => {
        throw new Error('cannot read it');
      }),
    ).toThrow('cannot read it');
    expect(readFileSync(path, 'utf8')).toBe('a live holder');
  });

  it('the stale one is removed; a fresh one found instead is put back', () => {
    const dir = tempDir('lock-aside');
    const path = join(dir, 'x.lock');
    writeFileSync(path, 'stale');
    expect(moveStaleAside(path, () => true)).toBe(true);
    expect(existsSync(path)).toBe(false);
    writeFileSync(path, 'fresh');
    expect(moveStaleAside(path, () => false)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('fresh');
  });
});
