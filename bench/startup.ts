// Start-up, as CI pays it many times a day: whole processes of the built CLI (node dist/cli/bin.js), each timed
// from spawn to exit, the median of several. The reference is a bare `node -e 0`: what any Node program costs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface StartupRow {
  step: string;
  median_ms: number;
  min_ms: number;
  max_ms: number;
  runs: number;
  /** the median as a multiple of the bare `node -e 0`'s, measured in the same run */
  ratio: number;
}

/** Wall time of one process, spawn to exit; it must exit 0 (a failing command would time its error path). */
function once(args: string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CI: '' } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return ms;
}

function row(step: string, args: string[], runs: number): Omit<StartupRow, 'ratio'> {
  once(args); // the first run fills the file system cache, as on a CI runner that has just checked out
  const times = Array.from({ length: runs }, () => once(args)).sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  return {
    step,
    median_ms: Math.round(median),
    min_ms: Math.round(times[0]),
    max_ms: Math.round(times[times.length - 1]),
    runs,
  };
}

/** `docsDir`: a directory of a few documents for `validate`. */
export function startupRows(root: string, docsDir: string, documents: number, runs = 10): StartupRow[] {
  const bin = join(root, 'dist/cli/bin.js');
  const rows = [
    row('node -e 0 (reference)', ['-e', '0'], runs),
    row('tapedeck --version', [bin, '--version'], runs),
    row(`tapedeck validate (${documents} documents)`, [bin, 'validate', docsDir], runs),
  ];
  return rows.map((r) => ({ ...r, ratio: +(r.median_ms / rows[0].median_ms).toFixed(2) }));
}
