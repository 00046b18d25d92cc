import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { main } from '../../src/cli/main.js';
import type { Clock } from '../../src/types.js';
import { systemClock } from '../../src/util/clock.js';
import { fileClock } from './clock.js';
import { tempDir } from './tmp.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real CLI, in-process (same code path as the bin), with captured output and its own environment. */
export async function runCli(
  args: string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    answer?: string;
    /** called when the run asks its question, before the answer is given (time passing while a human reads) */
    onAsk?: () => void;
    tty?: boolean;
    clock?: Clock;
    /** the wall time the run reads (change windows, the rules' now), on the system's clock otherwise */
    now?: () => Date;
  },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    out: (t) => {
      stdout += t;
    },
    err: (t) => {
      stderr += t;
    },
    env: { TAPEDECK_TOKEN: 'dev-token', ...opts.env },
    cwd: opts.cwd,
    isTTY: opts.tty ?? false,
    ask: async () => {
      opts.onAsk?.();
      return opts.answer ?? '';
    },
    clock: opts.now ? { ...(opts.clock ?? fileClock() ?? systemClock), now: opts.now } : (opts.clock ?? fileClock()),
  });
  return { code, stdout, stderr };
}

/**
 * A throwaway directory holding `files` (path -> text, or an object/array of documents written as YAML), removed
 * after the test file.
 */
export function testdir(files: Record<string, string | object | object[]>): string {
  const dir = tempDir();
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((d) => stringify(d)).join('---\n')
          : stringify(content);
    writeFileSync(full, text);
  }
  return dir;
}

/** plan/apply arguments against an emulator, with the state inside the test directory. */
export const against = (url: string, dir: string, ...rest: string[]) => [dir, '--base-url', url, ...rest];

/** `plan --json` against the emulator at `url()` (read at each call): its stderr must be empty; the plan parsed. */
export const jsonPlan =
  (url: () => string) =>
  async (dir: string, ...extra: string[]) => {
    const run = await runCli(['plan', ...against(url(), dir), '--json', ...extra], { cwd: dir });
    expect(run.stderr).toBe('');
    return { ...run, plan: JSON.parse(run.stdout) };
  };
