// globalSetup of both vitest configs: the run gets a temporary directory of its own (TMPDIR, which every test file
// and every process it starts inherits), and fails if a test left anything in it; the directory goes either way.
// Only a directory of the run's own can be checked: the machine's /tmp is shared with whatever else runs.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Caches of the tools the tests start, not directories a test made: tsx's compiled files, and the V8 compile cache
 * that npm 10.9+ turns on (`module.enableCompileCache`) when it runs on Node.js 22 or later.
 */
const isToolCache = (name: string) => /^tsx-\d+$/.test(name) || name === 'node-compile-cache';

export default function setup(): () => void {
  const saved = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-run-'));
  process.env.TMPDIR = dir;
  return () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    const left = readdirSync(dir).filter((name) => !isToolCache(name));
    rmSync(dir, { recursive: true, force: true });
    if (!left.length) return;
    // vitest reports an error thrown here but still exits 0: the exit code is set as well.
    process.exitCode = 1;
    throw new Error(
      `tests left ${left.length} temporary entries behind (use tempDir from test/helpers/tmp.ts): ${left.join(', ')}`,
    );
  };
}
