// npm run bench: a configuration of N mixed documents against the emulator at 20 ms latency, concurrency 16:
// plan, a bare GET loop of as many requests (the transport reference), apply (1% changed), no-op plan; then a
// CPU-only plan at latency 0, a naive one-at-a-time baseline, the plan under rate limits (bench/rate.ts), and
// start-up (bench/startup.ts). With --scale, plan and apply again at 10,000, 30,000 and 100,000 documents, for how
// their cost grows (about 3 more minutes).
// Each tapedeck run is its own process (bench/measure.mjs) so its CPU and RSS are its own; the emulator runs in
// another (bench/emulator.mjs), as a server would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinKinds } from '../src/kinds/registry.js';
import { readPath } from '../src/kinds/paths.js';
import { rateLimitSteps } from './rate.js';
import { withRules } from './rules.js';
import { startupRows } from './startup.js';
import { typoRows } from './typo.js';
import { refreshRows } from './refresh.js';
import { type Doc, type Emulator, forkEmulator, generate, KINDS, run, writeConfig } from './harness.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const N = flag('--n', 10_000);
const LATENCY = flag('--latency', 20);
const CONCURRENCY = flag('--concurrency', 16);
const asJson = args.includes('--json');
const SCALE = args.includes('--scale') ? [10_000, 30_000, 100_000] : [];
/** --typo: only the typo rows (bench/typo.ts), which need no emulator. */
const TYPO_ONLY = args.includes('--typo');
/** --refresh: only the `plan --refresh changed` and `apply --plan` rows (bench/refresh.ts), at 100,000 and 10,000
 *  (with --n, at that size only). */
const REFRESH_ONLY = args.includes('--refresh');
const root = resolve(import.meta.dirname, '..');
const log = (s: string) => { if (!asJson) process.stdout.write(s); };

async function step(name: string, emu: Emulator, latency: number, concurrency: number, cliArgs: string[], script?: string) {
  const before = await emu.stats();
  const m = await run([...cliArgs, '--base-url', emu.url, '--concurrency', String(concurrency)], script);
  const after = await emu.stats();
  const reads = after.reads - before.reads;
  const writes = after.writes - before.writes;
  const floor = Math.ceil((reads + writes) / concurrency) * latency;
  const row = { step: name, wall_ms: m.wall_ms, floor_ms: floor, ratio: floor ? +(m.wall_ms / floor).toFixed(2) : null, cpu_ms: m.cpu_ms, max_rss_mb: m.max_rss_mb, reads, writes };
  log(`${name.padEnd(26)} ${String(m.wall_ms).padStart(7)} ${String(floor).padStart(7)} ${String(row.ratio ?? '-').padStart(6)} ${String(m.cpu_ms).padStart(6)} ${String(m.max_rss_mb).padStart(6)} ${String(reads).padStart(6)} ${String(writes).padStart(6)}\n`);
  return row;
}

/** `--rules-only`: the guardrails' row alone, the CPU-only plan without and with the 20 rules, three times each. */
async function rulesOnly(dir: string, seedText: string) {
  const fast = await forkEmulator(seedText, dir, 0);
  const cpu: Record<'without' | 'with', number[]> = { without: [], with: [] };
  try {
    for (let i = 0; i < 3; i++) {
      cpu.without.push((await step('plan, latency 0 (CPU only)', fast, 0, CONCURRENCY, ['plan', dir, '--state', join(dir, 'fresh.state.json')])).cpu_ms);
      const removeRules = withRules(dir);
      try {
        cpu.with.push((await step('the same with 20 rules', fast, 0, CONCURRENCY, ['plan', dir, '--state', join(dir, 'fresh.state.json')])).cpu_ms);
      } finally {
        removeRules();
      }
    }
  } finally {
    await fast.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  log(`\nmedian CPU: ${median(cpu.without)} ms without rules, ${median(cpu.with)} ms with 20 (${((median(cpu.with) / median(cpu.without) - 1) * 100).toFixed(1)}% more)\n`);
}

async function main() {
  const { docs, seed } = generate(N);
  const dir = writeConfig(docs);
  const state = join(dir, 'bench.state.json');
  const seedText = JSON.stringify(seed);
  // The documents read one GET each (kinds without a list), for the bare loop.
  const pathsFile = join(dir, 'get-paths.json');
  writeFileSync(pathsFile, JSON.stringify(Object.entries(seed).flatMap(([key, items]) => {
    const k = builtinKinds.find((x) => x.seedKey === key)!;
    return k.list ? [] : (items as { id: string }[]).map((item) => readPath(k, { id: item.id, spec: {} }));
  })));
  if (args.includes('--rules-only')) return rulesOnly(dir, seedText);
  log(`tapedeck benchmark: ${N} documents (${KINDS.length} kinds), 1% changed, latency ${LATENCY} ms, concurrency ${CONCURRENCY}\n\n`);
  log(`${'step'.padEnd(26)} ${'wall ms'.padStart(7)} ${'floor'.padStart(7)} ${'ratio'.padStart(6)} ${'cpu ms'.padStart(6)} ${'rss MB'.padStart(6)} ${'reads'.padStart(6)} ${'writes'.padStart(6)}\n`);
  const emu = await forkEmulator(seedText, dir, LATENCY);
  const rows = [];
  let rate;
  try {
    const plan = await step('plan', emu, LATENCY, CONCURRENCY, ['plan', dir, '--state', state]);
    rows.push(plan);
    // Right after the plan, on the same emulator: as many bare GETs as the plan sent requests.
    rows.push(await step('bare GET loop (reference)', emu, LATENCY, CONCURRENCY, [pathsFile, String(plan.reads + plan.writes)], 'bench/bare-loop.mjs'));
    rows.push(await step('apply (1% changed)', emu, LATENCY, CONCURRENCY, ['apply', dir, '--state', state, '--yes']));
    rows.push(await step('no-op plan', emu, LATENCY, CONCURRENCY, ['plan', dir, '--state', state]));
    rate = await rateLimitSteps(emu, run, ['plan', dir, '--state', state, '--concurrency', String(CONCURRENCY)]);
  } finally {
    await emu.close();
  }
  const fast = await forkEmulator(seedText, dir, 0);
  let ruled;
  try {
    rows.push(await step('plan, latency 0 (CPU only)', fast, 0, CONCURRENCY, ['plan', dir, '--state', join(dir, 'fresh.state.json')]));
    const removeRules = withRules(dir);
    try {
      ruled = await step('the same with 20 rules', fast, 0, CONCURRENCY, ['plan', dir, '--state', join(dir, 'fresh.state.json')]);
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
  const [plan, , apply, noop, cpuOnly] = rows;
  const changed = Math.round(N / 100);
  log(`\nnaive baseline (one GET per document, one at a time), scaled to ${N}: ${naiveMs} ms; tapedeck's plan is ${+(naiveMs / plan.wall_ms).toFixed(1)}x faster\n`);
  const startup = startupOf(generate(10).docs);
  const typo = await typoOf(docs);
  const scale = await scaleRows();
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
    version_under_150ms: version.median_ms < 150,
    validate_10_under_150ms: validate10.median_ms < 150,
    rules_20_add_at_most_10pct_cpu: ruled!.cpu_ms <= 1.1 * cpuOnly.cpu_ms,
    ...scaleTargets(scale),
    ...rate!.targets,
    ...typo.targets,
  };
  const result = { n: N, latency_ms: LATENCY, concurrency: CONCURRENCY, steps: [...rows, ruled!], naive_baseline_ms: naiveMs, naive_speedup: +(naiveMs / plan.wall_ms).toFixed(1), cpu_only_plan_ms: cpuOnly.wall_ms, rate_limits: rate!.rows, startup, typo: typo.rows, ...(scale.length ? { scale } : {}), targets };
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

/** validate of one file of these documents, clean and with one typo (bench/typo.ts). */
async function typoOf(docs: Doc[]) {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-typo-'));
  try {
    log(`\none typo (median of 3)            wall ms  cpu ms  rss MB\n`);
    const typo = await typoRows(run, docs, dir);
    for (const r of typo.rows) log(`${r.step.padEnd(32)} ${String(r.wall_ms).padStart(7)} ${String(r.cpu_ms).padStart(7)} ${String(r.max_rss_mb).padStart(7)}\n`);
    return typo;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Start-up of the built CLI as whole processes (bench/startup.ts), `validate` on these few documents. */
function startupOf(docs: Doc[]) {
  const dir = writeConfig(docs);
  try {
    log(`\nstart-up (whole processes, median of 10)   median    min    max\n`);
    const rows = startupRows(root, dir, docs.length);
    for (const r of rows) log(`${r.step.padEnd(40)} ${String(r.median_ms).padStart(6)} ${String(r.min_ms).padStart(6)} ${String(r.max_ms).padStart(6)}\n`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** --scale: plan and apply at each size, each against an emulator of its own, as in the main run. */
async function scaleRows() {
  const out = [];
  if (SCALE.length) log(`\nscale (latency ${LATENCY} ms, concurrency ${CONCURRENCY})\n`);
  for (const n of SCALE) {
    const { docs, seed } = generate(n);
    const dir = writeConfig(docs);
    const emu = await forkEmulator(JSON.stringify(seed), dir, LATENCY);
    try {
      const state = join(dir, 'scale.state.json');
      out.push({ n, ...(await step(`plan, ${n}`, emu, LATENCY, CONCURRENCY, ['plan', dir, '--state', state])) });
      out.push({ n, ...(await step(`apply, ${n}`, emu, LATENCY, CONCURRENCY, ['apply', dir, '--state', state, '--yes'])) });
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/**
 * Growth at most linear from the smallest size: at the largest, CPU and RSS of plan and apply are no more than the
 * line through the two smallest sizes predicts (with 10% for the machine's noise).
 */
function scaleTargets(scale: Array<{ n: number; step: string; cpu_ms: number; max_rss_mb: number }>) {
  if (!scale.length) return {};
  const out: Record<string, boolean> = {};
  for (const what of ['plan', 'apply']) {
    const [a, b, c] = scale.filter((r) => r.step.startsWith(`${what},`));
    const line = (k: 'cpu_ms' | 'max_rss_mb') => a[k] + ((b[k] - a[k]) / (b.n - a.n)) * (c.n - a.n);
    out[`${what}_cpu_growth_at_most_linear`] = c.cpu_ms <= 1.1 * line('cpu_ms');
    out[`${what}_rss_growth_at_most_linear`] = c.max_rss_mb <= 1.1 * line('max_rss_mb');
    out[`${what}_rss_at_most_300mb_at_${c.n}`] = c.max_rss_mb <= 300;
  }
  const plan = scale.filter((r) => r.step.startsWith('plan,')).at(-1)!;
  out[`plan_cpu_at_most_8s_at_${plan.n}`] = plan.cpu_ms <= 8000;
  return out;
}

if (REFRESH_ONLY) {
  const refresh = await refreshRows({ generate, writeConfig, forkEmulator, run: (a) => run(a), log }, args.includes('--n') ? [N] : undefined);
  if (asJson) process.stdout.write(`${JSON.stringify(refresh, null, 2)}\n`);
  for (const [name, ok] of Object.entries(refresh.targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  if (Object.values(refresh.targets).some((ok) => !ok)) process.exitCode = 1;
} else if (TYPO_ONLY) {
  const typo = await typoOf(generate(N).docs);
  if (asJson) process.stdout.write(`${JSON.stringify(typo, null, 2)}\n`);
  for (const [name, ok] of Object.entries(typo.targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
  if (Object.values(typo.targets).some((ok) => !ok)) process.exitCode = 1;
} else await main();
