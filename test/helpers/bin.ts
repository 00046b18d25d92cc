import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { CliRun } from './cli.js';

export const root = resolve(import.meta.dirname, '../..');
/** The built CLI, as installed (`npm run test:slow` builds it first; test/slow/dist.ts checks it is current). */
export const bin = join(root, 'dist/cli/bin.js');

/** Runs a command as its own process; stdout and stderr are collected for `finished`. */
export function start(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): ChildProcess {
  return spawn(command, args, {
    cwd: opts.cwd ?? root,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The process's exit code (-1 when a signal ended it) and all it wrote, once it has ended. Never rejects. */
export function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => {
    stdout += c;
  });
  child.stderr?.on('data', (c) => {
    stderr += c;
  });
  return new Promise((done) =>
    child.on('close', (code, signal) => done({ code: signal ? -1 : (code ?? -1), stdout, stderr })),
  );
}

/** The built CLI as its own process, with the test token, outside CI mode (no progress lines). */
export const startBin = (args: string[], cwd = root) =>
  start(process.execPath, [bin, ...args], { cwd, env: { TAPEDECK_TOKEN: 'dev-token', CI: '' } });

export const runBin = (args: string[], cwd = root) => finished(startBin(args, cwd));
