// npm run bench: a configuration of N mixed documents against the emulator at 20 ms latency, concurrency 16:
// plan, a bare GET loop of as many requests (the transport reference), apply (1% changed), no-op plan; then a
// CPU-only plan at latency 0, a naive one-at-a-time baseline, the plan under rate limits (bench/rate.ts), and
// start-up (bench/startup.ts). With --scale, plan and apply again at 10,000, 30,000 and 100,000 documents, for how
// their cost grows (about 3 more minutes).
// Each tapedeck run is its own process (bench/measure.mjs) so its CPU and RSS are its own; the emulator runs in
// another (bench/emulator.mjs), as a server would.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { rateLimitSteps, rateOnly } from './rate.js';
import { fleetBench } from './fleet.js';
import { withRules } from './rules.js';
import { startupOf, typoOf } from './offline-rows.js';
import { refreshRows } from './refresh.js';
import { scaleRows, scaleTargets } from './scale.js';
import { cpuFloor, type Emulator, forkEmulator, generate, KINDS, run, writeConfig, writeGetPaths } from './harness.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const N = flag('--n', 10_000);
const LATENCY = flag('--latency', 20);
const CONCURRENCY = flag('--concurrency', 16);
const asJson = args.includes('--json');
/** --scale: plan and apply at more sizes (bench/scale.ts); --scale-only: those rows alone. */
const SCALE_ONLY = args.includes('--scale-only');
const sizesArg = args.indexOf('--sizes');
const SIZES = sizesArg >= 0 ? args[sizesArg + 1].split(',').map(Number) : [10_000, 30_000, 100_000];
const SCALE = args.includes('--scale') || SCALE_ONLY ? SIZES : [];
/** --fleet: the fleet budget's rows (bench/fleet.ts), alone: they take minutes; --fleet-docs N: documents per
 *  process (default 1,000, or N/10 with a smaller --n), for a smoke run. */
const FLEET_ONLY = args.includes('--fleet');
const FLEET_DOCS = flag('--fleet-docs', Math.min(1000, Math.round(N / 10)));
/** --typo: only the typo rows (bench/typo.ts), which need no emulator. */
const TYPO_ONLY = args.includes('--typo');
/** --refresh: only the `plan --refresh changed` and `apply --plan` rows (bench/refresh.ts), at 100,000 and 10,000
 *  (with --n, at that size only). */
const REFRESH_ONLY = args.includes('--refresh');
/** --rate-only: the rate-limit rows alone (bench/rate.ts), after one apply, --runs times (default 3). */
const RATE_ONLY = args.includes('--rate-only');
/** --plan-only: the plan and the bare GET loop alone, alternating on one emulator, --runs times (default 3), with
 *  the load average beside each pair: the rows of plan_within_1_2x_floor. */
const PLAN_ONLY = args.includes('--plan-only');
const log = (s: string) => {
  if (!asJson) process.stdout.write(s);
};
const COLUMNS = `${'step'.padEnd(26)} ${['wall ms', 'floor', 'ratio', 'cpu ms', 'rss MB', 'reads', 'writes']
  .map((h, i) => h.padStart(i < 2 ? 7 : 6))
  .join(' ')}\n`;

async function step(
  name: string,
  emu: Emulator,
  latency: number,
  concurrency: number,
  cliArgs: string[],
  script?: string,
) {
  const before = await emu.stats();
  const m = await run([...cliArgs, '--base-url', emu.url, '--concurrency', String(concurrency)], script);
  const after = await emu.stats();
  const reads = after.reads - before.reads;
  const writes = after.writes - before.writes;
  const floor = Math.ceil((reads + writes) / concurrency) * latency;
  const row = {
    step: name,
    wall_ms: m.wall_ms,
    floor_ms: floor,
    ratio: floor ? +(m.wall_ms / floor).toFixed(2) : null,
    cpu_ms: m.cpu_ms,
    max_rss_mb: m.max_rss_mb,
    reads,
    writes,
  };
  log(
    `${name.padEnd(26)} ${String(m.wall_ms).padStart(7)} ${String(floor).padStart(7)} ${String(row.ratio ?? '-').padStart(6)} ${String(m.cpu_ms).padStart(6)} ${String(m.max_rss_mb).padStart(6)} ${String(reads).padStart(6)} ${String(writes).padStart(6)}\n`,
  );
  return row;
}

/** `--rules-only`: the guardrails' row alone, the CPU-only plan without and with the 20 rules, three times each. */
async function rulesOnly(dir: string, seedText: string) {
  const fast = await forkEmulator(seedText, dir, 0);
  const cpu: Record<'without' | 'with', number[]> = { without: [], with: [] };
  try {
    for (let i = 0; i < 3; i++) {
      cpu.without.push(
        (
          await step('plan, latency 0 (CPU only)', fast, 0, CONCURRENCY, [
            'plan',
            dir,
            '--state',
            join(dir, 'fresh.state.json'),
          ])
        ).cpu_ms,
      );
      const removeRules = withRules(dir);
      try {
        cpu.with.push(
          (
            await step('the same with 20 rules', fast, 0, CONCURRENCY, [
              'plan',
              dir,
              '--state',
              join(dir, 'fresh.state.json'),
            ])
          ).cpu_ms,
        );
      } finally {
        removeRules();
      }
    }
  } finally {
    await fast.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  log(
    `\nmedian CPU: ${median(cpu.without)} ms without rules, ${median(cpu.with)} ms with 20 (${((median(cpu.with) / median(cpu.without) - 1) * 100).toFixed(1)}% more)\n`,
  );
}

async function main() {
  const { docs, seed } = generate(N);
  const dir = writeConfig(docs);
  const state = join(dir, 'bench.state.json');
  const seedText = JSON.stringify(seed);
  const pathsFile = writeGetPaths(dir, seed);
  if (args.includes('--rules-only')) return rulesOnly(dir, seedText);
  log(
    `tapedeck benchmark: ${N} documents (${KINDS.length} kinds), 1% changed, latency ${LATENCY} ms, concurrency ${CONCURRENCY}\n\n`,
  );
  log(COLUMNS);
  const emu = await forkEmulator(seedText, dir, LATENCY);
  const rows = [];
  let rate;
  try {
    const plan = await step('plan', emu, LATENCY, CONCURRENCY, ['plan', dir, '--state', state]);
    rows.push(plan);
    // Right after the plan, on the same emulator: as many bare GETs as the plan sent requests.
    rows.push(
      await step(
        'bare GET loop (reference)',
        emu,
        LATENCY,
        CONCURRENCY,
        [pathsFile, String(plan.reads + plan.writes)],
        'bench/bare-loop.mjs',
      ),
    );
    // The CPU floor's other part: the same documents read by the parser alone.
    rows.push(await step('parser alone (reference)', emu, LATENCY, CONCURRENCY, [dir], 'bench/parse-floor.mjs'));
    rows.push(await step('apply (1% changed)', emu, LATENCY, CONCURRENCY, ['apply', dir, '--state', state, '--yes']));
    rows.push(await step('no-op plan', emu, LATENCY, CONCURRENCY, ['plan', dir, '--state', state]));
    rate = await rateLimitSteps(emu, run, ['plan', dir, '--state', state, '--concurrency', String(CONCURRENCY)]);
  } finally {
    await emu.close();
  }
  const fast = await forkEmulator(seedText, dir, 0);
  let ruled;
  try {
    rows.push(
      await step('plan, latency 0 (CPU only)', fast, 0, CONCURRENCY, [
        'plan',
        dir,
        '--state',
        join(dir, 'fresh.state.json'),
      ]),
    );
    const removeRules = withRules(dir);
    try {
      ruled = await step('the same with 20 rules', fast, 0, CONCURRENCY, [
        'plan',
        dir,
        '--state',
        join(dir, 'fresh.state.json'),
      ]);
    } finally {
      removeRules();
    }
  } finally {
    await fast.close();
  }
  // The naive baseline: one GET per document, one at a time (kinds read only by GET), measured on a sample.
  const sampleSize = Math.min(N, 200);
  const sample = generate(sampleSize, ['Vod', 'Banner', 'RtmpIngest']);
  const sampleDir = writeConfig(sample.docs);
  const slow = await forkEmulator(JSON.stringify(sample.seed), sampleDir, LATENCY);
  let naive;
  try {
    naive = await step(`naive sample (${sampleSize}, c=1)`, slow, LATENCY, 1, ['plan', sampleDir]);
  } finally {
    await slow.close();
  }
  const naiveMs = Math.round((naive.wall_ms / sampleSize) * N);
  const [plan, bare, parsed, apply, noop, cpuOnly] = rows;
  const floor = cpuFloor(plan, parsed, bare);
  const changed = Math.round(N / 100);
  log(
    `\nplan CPU ${plan.cpu_ms} ms = ${floor.ratio}x its floor (parser alone ${floor.parse_cpu_ms} ms + bare GET loop ${floor.bare_cpu_ms} ms)\n`,
  );
  log(
    `\nnaive baseline (one GET per document, one at a time), scaled to ${N}: ${naiveMs} ms; tapedeck's plan is ${+(naiveMs / plan.wall_ms).toFixed(1)}x faster\n`,
  );
  const startup = startupOf(generate(10).docs, log);
  const typo = await typoOf(docs, log);
  const { rows: scale, floors } = await scaleOf();
  // The plan's CPU: 3 s for 10,000 documents; 8 s for larger configurations (issue 21 asks 8 s at 100,000).
  const cpuLimit = N <= 10_000 ? 3000 : 8000;
  const [version, validate10] = startup.slice(1);
  const targets = {
    // On the exact times, not the ratio as printed (rounded to two places, 1.204 would pass).
    plan_within_1_2x_floor: plan.wall_ms <= 1.2 * plan.floor_ms,
    [`plan_cpu_at_most_${cpuLimit / 1000}s`]: plan.cpu_ms <= cpuLimit,
    plan_rss_at_most_300mb: plan.max_rss_mb <= 300,
    apply_rss_at_most_300mb: apply.max_rss_mb <= 300,
    noop_zero_writes: noop.writes === 0,
    apply_one_write_per_change: apply.writes === changed,
    // Start-up against a bare `node -e 0` of the same run (a machine's Node start varies threefold between machines).
    version_within_1_5x_node: version.ratio <= 1.5,
    validate_10_within_2_5x_node: validate10.ratio <= 2.5,
    rules_20_add_at_most_10pct_cpu: ruled!.cpu_ms <= 1.1 * cpuOnly.cpu_ms,
    ...scaleTargets(scale, floors),
    ...rate!.targets,
    ...typo.targets,
  };
  const result = {
    n: N,
    latency_ms: LATENCY,
    concurrency: CONCURRENCY,
    steps: [...rows, ruled!],
    plan_cpu_floor: floor,
    naive_baseline_ms: naiveMs,
    naive_speedup: +(naiveMs / plan.wall_ms).toFixed(1),
    cpu_only_plan_ms: cpuOnly.wall_ms,
    rate_limits: rate!.rows,
    startup,
    typo: typo.rows,
    ...(scale.length ? { scale, scale_floors: floors } : {}),
    targets,
  };
  if (asJson) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    log(rate!.table);
    log('\ntargets:\n');
    for (const [name, ok] of Object.entries(targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(sampleDir, { recursive: true, force: true });
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
}

/** --plan-only: `runs` pairs of the plan and the bare loop of as many GETs; true if every plan met its target. */
async function planOnly(runs: number) {
  const { docs, seed } = generate(N);
  const dir = writeConfig(docs);
  const pathsFile = writeGetPaths(dir, seed);
  const emu = await forkEmulator(JSON.stringify(seed), dir, LATENCY);
  const pairs = [];
  log(COLUMNS);
  try {
    for (let i = 0; i < runs; i++) {
      const load = loadavg()[0].toFixed(2);
      const plan = await step('plan', emu, LATENCY, CONCURRENCY, ['plan', dir]);
      const requests = String(plan.reads + plan.writes);
      const bare = await step(
        'bare GET loop (reference)',
        emu,
        LATENCY,
        CONCURRENCY,
        [pathsFile, requests],
        'bench/bare-loop.mjs',
      );
      log(`  load ${load} before, ${loadavg()[0].toFixed(2)} after\n`);
      pairs.push({ plan, bare, load: Number(load), plan_within_1_2x_floor: plan.wall_ms <= 1.2 * plan.floor_ms });
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (asJson) process.stdout.write(`${JSON.stringify(pairs, null, 2)}\n`);
  return pairs.every((p) => p.plan_within_1_2x_floor);
}

/** The --scale rows, each a step as in the main run. */
function scaleOf() {
  const scaleStep = (name: string, emu: Emulator, cliArgs: string[], script?: string) =>
    step(name, emu, LATENCY, CONCURRENCY, cliArgs, script);
  const deps = { generate, writeConfig, writeGetPaths, forkEmulator, log, step: scaleStep };
  return scaleRows(deps, SCALE, LATENCY, args.includes('--noop'));
}

if (SCALE_ONLY) {
  log(COLUMNS);
  const { rows: scale, floors } = await scaleOf();
  const targets = scaleTargets(scale, floors);
  if (asJson) process.stdout.write(`${JSON.stringify({ scale, floors, targets }, null, 2)}\n`);
  for (const [name, ok] of Object.entries(targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  if (Object.values(targets).some((ok) => !ok)) process.exitCode = 1;
} else if (REFRESH_ONLY) {
  const refresh = await refreshRows(
    { generate, writeConfig, forkEmulator, run: (a) => run(a), log },
    args.includes('--n') ? [N] : undefined,
  );
  if (asJson) process.stdout.write(`${JSON.stringify(refresh, null, 2)}\n`);
  for (const [name, ok] of Object.entries(refresh.targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  if (Object.values(refresh.targets).some((ok) => !ok)) process.exitCode = 1;
} else if (PLAN_ONLY) {
  const ok = await planOnly(flag('--runs', 3));
  if (!ok) process.exitCode = 1;
} else if (RATE_ONLY) {
  const { docs, seed } = generate(N);
  const dir = writeConfig(docs);
  const emu = await forkEmulator(JSON.stringify(seed), dir, LATENCY);
  try {
    const runs = await rateOnly(emu, run, dir, flag('--runs', 3), log);
    if (asJson) process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    if (runs.some((r) => Object.values(r.targets).some((ok) => !ok))) process.exitCode = 1;
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
} else if (FLEET_ONLY) {
  const fleet = await fleetBench(FLEET_DOCS, LATENCY, log);
  if (asJson) process.stdout.write(`${JSON.stringify(fleet, null, 2)}\n`);
  for (const [name, ok] of Object.entries(fleet.targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  if (Object.values(fleet.targets).some((ok) => !ok)) process.exitCode = 1;
} else if (TYPO_ONLY) {
  const typo = await typoOf(generate(N).docs, log);
  if (asJson) process.stdout.write(`${JSON.stringify(typo, null, 2)}\n`);
  for (const [name, ok] of Object.entries(typo.targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  if (Object.values(typo.targets).some((ok) => !ok)) process.exitCode = 1;
} else await main();
