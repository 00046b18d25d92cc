import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty directory (under the system's temporary directory unless `parent` is given), removed after the test file. */
export function tempDir(prefix = 'tapedeck-test-', parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  made.push(dir);
  return dir;
}

/** Removes one directory tempDir made, at once. */
export function removeTempDir(dir: string): void {
  if (made.includes(dir)) made.splice(made.indexOf(dir), 1);
  rmSync(dir, { recursive: true, force: true });
}

/** Removes every directory tempDir made; test/helpers/setup.ts runs it after each test file. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
