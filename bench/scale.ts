// The benchmark's --scale rows: plan and apply at 10,000, 30,000 and 100,000 documents, each size against an
// emulator of its own, as in the main run, for how their cost grows. `--scale-only` runs these rows alone;
// `--sizes A,B,C` other sizes; `--noop` adds a no-op plan at each size (the state of every document read back).
// At each size the plan's CPU floor is measured too, on the same documents and emulator: the parser alone
// (bench/parse-floor.mjs) and a bare GET loop of as many requests (bench/bare-loop.mjs); the plan's CPU is stated as
// a ratio to their sum, and at the largest size (100,000 documents by default) it must be at most 2.5x.
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { cpuFloor, type Doc } from './harness.js';

interface Emulator {
  close(): Promise<void>;
}
interface Row {
  step: string;
  cpu_ms: number;
  max_rss_mb: number;
  reads: number;
  writes: number;
}
/** the plan's CPU against its floor at one size */
export interface FloorRow extends ReturnType<typeof cpuFloor> {
  n: number;
}
/** the largest ratio of the plan's CPU to its floor that the target allows */
export const PLAN_CPU_FLOOR_RATIO = 2.5;
export interface ScaleDeps<E extends Emulator> {
  generate(n: number): { docs: Doc[]; seed: Record<string, unknown[]> };
  writeConfig(docs: Doc[]): string;
  writeGetPaths(dir: string, seed: Record<string, unknown[]>): string;
  forkEmulator(seedText: string, dir: string, latency: number): Promise<E>;
  step(name: string, emu: E, cliArgs: string[], script?: string): Promise<Row>;
  log(text: string): void;
}

/** Plan and apply (and with `noop` a no-op plan) at each size. */
export async function scaleRows<E extends Emulator>(
  deps: ScaleDeps<E>,
  sizes: number[],
  latency: number,
  noop: boolean,
) {
  const out = [];
  const floors: FloorRow[] = [];
  if (sizes.length) deps.log(`\nscale (latency ${latency} ms)\n`);
  for (const n of sizes) {
    const { docs, seed } = deps.generate(n);
    const dir = deps.writeConfig(docs);
    const emu = await deps.forkEmulator(JSON.stringify(seed), dir, latency);
    try {
      const state = join(dir, 'scale.state.json');
      const plan = await deps.step(`plan, ${n}`, emu, ['plan', dir, '--state', state]);
      out.push({ n, ...plan });
      const paths = deps.writeGetPaths(dir, seed);
      const requests = String(plan.reads + plan.writes);
      const bare = await deps.step(`bare GET loop, ${n}`, emu, [paths, requests], 'bench/bare-loop.mjs');
      const parsed = await deps.step(`parser alone, ${n}`, emu, [dir], 'bench/parse-floor.mjs');
      out.push({ n, ...bare }, { n, ...parsed });
      const floor = { n, ...cpuFloor(plan, parsed, bare) };
      floors.push(floor);
      deps.log(
        `  plan CPU at ${n}: ${floor.ratio}x its floor (parser ${parsed.cpu_ms} ms + bare loop ${bare.cpu_ms} ms)\n`,
      );
      out.push({ n, ...(await deps.step(`apply, ${n}`, emu, ['apply', dir, '--state', state, '--yes'])) });
      if (noop) out.push({ n, ...(await deps.step(`no-op plan, ${n}`, emu, ['plan', dir, '--state', state])) });
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { rows: out, floors };
}

/**
 * Growth at most linear from the smallest size: at the largest, CPU and RSS of plan and apply are no more than the
 * line through the two smallest sizes predicts (with 10% for the machine's noise).
 */
export function scaleTargets(
  scale: Array<{ n: number; step: string; cpu_ms: number; max_rss_mb: number }>,
  floors: FloorRow[] = [],
) {
  const out: Record<string, boolean> = {};
  const largest = floors.at(-1);
  if (largest)
    out[`plan_cpu_at_most_${PLAN_CPU_FLOOR_RATIO}x_floor_at_${largest.n}`] = largest.ratio <= PLAN_CPU_FLOOR_RATIO;
  if (scale.filter((r) => r.step.startsWith('plan,')).length < 3) return out;
  for (const what of ['plan', 'apply']) {
    const [a, b, c] = scale.filter((r) => r.step.startsWith(`${what},`));
    if (!c) continue;
    const line = (k: 'cpu_ms' | 'max_rss_mb') => a[k] + ((b[k] - a[k]) / (b.n - a.n)) * (c.n - a.n);
    out[`${what}_cpu_growth_at_most_linear`] = c.cpu_ms <= 1.1 * line('cpu_ms');
    out[`${what}_rss_growth_at_most_linear`] = c.max_rss_mb <= 1.1 * line('max_rss_mb');
    out[`${what}_rss_at_most_300mb_at_${c.n}`] = c.max_rss_mb <= 300;
  }
  return out;
}
