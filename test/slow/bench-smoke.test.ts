// A small run of the benchmark (the full one is `npm run bench`, not part of CI): it runs end to end and its
// request counts hold: a no-op plan writes nothing, an apply writes once per changed resource, the bare loop sends
// as many reads as the plan. The benchmark runs the built CLI (bench/measure.mjs imports dist/).
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { finished, root, start } from '../helpers/bin.js';
import { tempDir } from '../helpers/tmp.js';

it('npm run bench --n 400 reports every step and its request counts', async () => {
  // The benchmark exits 1 when a timing target is missed, which a run this small on a busy machine may well do:
  // only its counts are checked here. Its temporary directories go inside one that is removed after this file.
  const run = await finished(
    start(join(root, 'node_modules/.bin/tsx'), ['bench/run.ts', '--n', '400', '--latency', '2', '--json'], {
      env: { TMPDIR: tempDir('tapedeck-bench-smoke-') },
    }),
  );
  const result = JSON.parse(run.stdout);
  expect(result.steps.map((s: { step: string }) => s.step)).toEqual([
    'plan',
    'bare GET loop (reference)',
    'parser alone (reference)',
    'apply (1% changed)',
    'no-op plan',
    'plan, latency 0 (CPU only)',
    'the same with 20 rules',
  ]);
  // Times are reported, not judged: their targets are the full benchmark's business.
  expect(result.naive_baseline_ms).toEqual(expect.any(Number));
  const [plan, bare, parsed, apply, noop] = result.steps;
  // The transport reference sends as many requests as the plan did, all of them reads; the parser sends none.
  expect(bare).toMatchObject({ reads: plan.reads, writes: 0 });
  expect(parsed).toMatchObject({ reads: 0, writes: 0 });
  // The plan's CPU against that floor (parser alone plus bare loop), measured in the same run.
  expect(result.plan_cpu_floor).toMatchObject({
    parse_cpu_ms: parsed.cpu_ms,
    bare_cpu_ms: bare.cpu_ms,
    floor_ms: parsed.cpu_ms + bare.cpu_ms,
    ratio: +(plan.cpu_ms / (parsed.cpu_ms + bare.cpu_ms)).toFixed(2),
  });
  expect(plan.writes).toBe(0);
  expect(apply.writes).toBe(4);
  expect(noop.writes).toBe(0);
  expect(plan.reads).toBeLessThan(400);
  expect(result.targets).toMatchObject({ noop_zero_writes: true, apply_one_write_per_change: true });
  // The rate-limit rows: the same plan, served in full against the emulator's limit and under --max-rps.
  const [limited, capped] = result.rate_limits;
  expect(limited).toMatchObject({ step: 'plan, emulator at 200 rps', served: plan.reads });
  expect(capped).toMatchObject({ step: 'plan, --max-rps 300', served: plan.reads, answered_429: 0 });
  expect(capped.busiest_second).toBeLessThanOrEqual(300);
  // Start-up: whole processes of the built CLI, timed (the times are the full benchmark's business).
  expect(result.startup.map((r: { step: string }) => r.step)).toEqual([
    'node -e 0 (reference)',
    'tapedeck --version',
    'tapedeck validate (10 documents)',
  ]);
  for (const r of result.startup) expect(r).toMatchObject({ median_ms: expect.any(Number), runs: 10 });
  // Each as a multiple of the bare node's median.
  for (const r of result.startup) expect(r.ratio).toBe(+(r.median_ms / result.startup[0].median_ms).toFixed(2));
  expect(Object.keys(result.targets)).toEqual(
    expect.arrayContaining(['version_within_1_5x_node', 'validate_10_within_2_5x_node', 'apply_rss_at_most_300mb']),
  );
});
