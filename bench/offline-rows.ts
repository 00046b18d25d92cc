// The benchmark's rows that need no emulator: validate with one typo (bench/typo.ts), and start-up of the built CLI
// as whole processes (bench/startup.ts); each printed as a table and returned.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Doc, run, writeConfig } from './harness.js';
import { startupRows } from './startup.js';
import { typoRows } from './typo.js';

const root = resolve(import.meta.dirname, '..');

/** validate of one file of these documents, clean and with one typo (bench/typo.ts). */
export async function typoOf(docs: Doc[], log: (s: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-typo-'));
  try {
    log(`\none typo (median of 3)            wall ms  cpu ms  rss MB\n`);
    const typo = await typoRows(run, docs, dir);
    for (const r of typo.rows)
      log(
        `${r.step.padEnd(32)} ${String(r.wall_ms).padStart(7)} ${String(r.cpu_ms).padStart(7)} ${String(r.max_rss_mb).padStart(7)}\n`,
      );
    return typo;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Start-up of the built CLI as whole processes (bench/startup.ts), `validate` on these few documents. */
export function startupOf(docs: Doc[], log: (s: string) => void) {
  const dir = writeConfig(docs);
  try {
    log(`\nstart-up (whole processes, median of 10)   median    min    max  x node\n`);
    const rows = startupRows(root, dir, docs.length);
    for (const r of rows)
      log(
        `${r.step.padEnd(40)} ${String(r.median_ms).padStart(6)} ${String(r.min_ms).padStart(6)} ${String(r.max_ms).padStart(6)} ${String(r.ratio).padStart(7)}\n`,
      );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
