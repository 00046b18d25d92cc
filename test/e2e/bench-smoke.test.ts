// A small run of the benchmark (the full one is `npm run bench`, not part of CI): it runs end to end and its
// request counts hold: a no-op plan writes nothing, an apply writes once per changed resource, the bare loop sends
// as many reads as the plan.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

it.skipIf(!existsSync(join(root, 'dist/cli/main.js')))('npm run bench --n 400 reports every step and its request counts', async () => {
  const run = await promisify(execFile)(join(root, 'node_modules/.bin/tsx'), ['bench/run.ts', '--n', '400', '--latency', '2', '--json'], { cwd: root })
    .catch((e: { stdout: string }) => e);
  const result = JSON.parse(run.stdout);
  expect(result.steps.map((s: { step: string }) => s.step)).toEqual(['plan', 'bare GET loop (reference)', 'apply (1% changed)', 'no-op plan', 'plan, latency 0 (CPU only)']);
  expect(result.naive_baseline_ms).toBeGreaterThan(0);
  const [plan, bare, apply, noop] = result.steps;
  // The transport reference sends as many requests as the plan did, all of them reads.
  expect(bare).toMatchObject({ reads: plan.reads, writes: 0 });
  expect(plan.writes).toBe(0);
  expect(apply.writes).toBe(4);
  expect(noop.writes).toBe(0);
  expect(plan.reads).toBeLessThan(400);
  expect(result.targets).toMatchObject({ noop_zero_writes: true, apply_one_write_per_change: true });
}, 120_000);
