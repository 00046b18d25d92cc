// The benchmark's --refresh rows (issue 33): N documents applied once (latency 0, no limit: setup, not timed), then
// one offer changed, against the emulator at 20 ms latency limited to 200 requests a second: `plan --refresh changed
// --out` (at most 3 s at 100,000 documents and 1 s at 10,000, at most 5 requests), then `apply --plan` of that plan
// (at most 3 s at 100,000, reading only what it writes). Three runs at each size, each changing the offer again;
// medians.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Doc, Emulator, Measured } from './harness.js';

export interface RefreshDeps {
  generate(n: number): { docs: Doc[]; seed: Record<string, unknown[]> };
  writeConfig(docs: Doc[]): string;
  forkEmulator(seedText: string, dir: string, latency: number): Promise<Emulator>;
  run(cliArgs: string[]): Promise<Measured>;
  log(text: string): void;
}

export interface RefreshRow {
  step: string;
  n: number;
  wall_ms: number;
  cpu_ms: number;
  max_rss_mb: number;
  reads: number;
  writes: number;
}

const RATE = 200;
const LATENCY = 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** One command's cost and the requests the emulator served meanwhile. */
async function counted(emu: Emulator, deps: RefreshDeps, args: string[]) {
  const before = await emu.stats();
  const m = await deps.run([...args, '--base-url', emu.url, '--concurrency', '16']);
  const after = await emu.stats();
  return { ...m, reads: after.reads - before.reads, writes: after.writes - before.writes };
}

async function atSize(deps: RefreshDeps, n: number): Promise<RefreshRow[]> {
  const { docs, seed } = deps.generate(n);
  const dir = deps.writeConfig(docs);
  const state = join(dir, 'refresh.state.json');
  const planFile = join(dir, 'refresh-plan.json');
  const emu = await deps.forkEmulator(JSON.stringify(seed), dir, 0);
  const plans: Array<Awaited<ReturnType<typeof counted>>> = [];
  const applies: typeof plans = [];
  try {
    await deps.run(['apply', dir, '--state', state, '--yes', '--base-url', emu.url, '--concurrency', '16']);
    await emu.ask({ latency: LATENCY });
    const offers = docs.filter((d) => d.kind === 'Offer');
    for (let i = 0; i < 3; i++) {
      offers[i].spec.priority = 100 + i;
      writeFileSync(join(dir, 'Offer.yaml'), offers.map((d) => stringify(d)).join('---\n'));
      await emu.ask({ rateLimits: [String(RATE)] }); // full buckets for each step
      plans.push(await counted(emu, deps, ['plan', dir, '--state', state, '--refresh', 'changed', '--out', planFile]));
      await emu.ask({ rateLimits: [String(RATE)] });
      applies.push(await counted(emu, deps, ['apply', '--plan', planFile, '--state', state, '--yes']));
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const row = (step: string, runs: typeof plans): RefreshRow => ({
    step,
    n,
    wall_ms: median(runs.map((r) => r.wall_ms)),
    cpu_ms: median(runs.map((r) => r.cpu_ms)),
    max_rss_mb: median(runs.map((r) => r.max_rss_mb)),
    reads: Math.max(...runs.map((r) => r.reads)),
    writes: Math.max(...runs.map((r) => r.writes)),
  });
  return [row(`plan --refresh changed, ${n}`, plans), row(`apply --plan of it, ${n}`, applies)];
}

/** The rows at 100,000 and 10,000 documents, their targets and their table. */
export async function refreshRows(deps: RefreshDeps, sizes = [100_000, 10_000]) {
  deps.log(`\n--refresh changed: one offer changed, latency ${LATENCY} ms, emulator at ${RATE} rps (medians of 3)\n`);
  deps.log(
    `${'step'.padEnd(36)} ${'wall ms'.padStart(7)} ${'cpu ms'.padStart(6)} ${'rss MB'.padStart(6)} ${'reads'.padStart(6)} ${'writes'.padStart(6)}\n`,
  );
  const rows: RefreshRow[] = [];
  for (const n of sizes) {
    for (const r of await atSize(deps, n)) {
      rows.push(r);
      deps.log(
        `${r.step.padEnd(36)} ${String(r.wall_ms).padStart(7)} ${String(r.cpu_ms).padStart(6)} ${String(r.max_rss_mb).padStart(6)} ${String(r.reads).padStart(6)} ${String(r.writes).padStart(6)}\n`,
      );
    }
  }
  const targets: Record<string, boolean> = {};
  for (const r of rows) {
    if (r.step.startsWith('plan')) {
      targets[`refresh_changed_plan_at_most_${r.n <= 10_000 ? 1 : 3}s_at_${r.n}`] =
        r.wall_ms <= (r.n <= 10_000 ? 1000 : 3000);
      targets[`refresh_changed_plan_at_most_5_requests_at_${r.n}`] = r.reads + r.writes <= 5;
    } else if (r.n > 10_000) {
      targets[`apply_saved_plan_at_most_3s_at_${r.n}`] = r.wall_ms <= 3000;
      // The one offer written: read before its write and read back after it, nothing else.
      targets[`apply_saved_plan_reads_only_what_it_writes_at_${r.n}`] = r.writes === 1 && r.reads <= 2 * r.writes;
    }
  }
  return { rows, targets };
}
