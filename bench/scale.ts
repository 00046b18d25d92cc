// The benchmark's --scale rows: plan and apply at 10,000, 30,000 and 100,000 documents, each size against an
// emulator of its own, as in the main run, for how their cost grows. `--scale-only` runs these rows alone;
// `--sizes A,B,C` other sizes; `--noop` adds a no-op plan at each size (the state of every document read back).
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import type { Doc } from './harness.js';

interface Emulator {
  close(): Promise<void>;
}
interface Row {
  step: string;
  cpu_ms: number;
  max_rss_mb: number;
}
export interface ScaleDeps<E extends Emulator> {
  generate(n: number): { docs: Doc[]; seed: Record<string, unknown[]> };
  writeConfig(docs: Doc[]): string;
  forkEmulator(seedText: string, dir: string, latency: number): Promise<E>;
  step(name: string, emu: E, cliArgs: string[]): Promise<Row>;
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
  if (sizes.length) deps.log(`\nscale (latency ${latency} ms)\n`);
  for (const n of sizes) {
    const { docs, seed } = deps.generate(n);
    const dir = deps.writeConfig(docs);
    const emu = await deps.forkEmulator(JSON.stringify(seed), dir, latency);
    try {
      const state = join(dir, 'scale.state.json');
      out.push({ n, ...(await deps.step(`plan, ${n}`, emu, ['plan', dir, '--state', state])) });
      out.push({ n, ...(await deps.step(`apply, ${n}`, emu, ['apply', dir, '--state', state, '--yes'])) });
      if (noop) out.push({ n, ...(await deps.step(`no-op plan, ${n}`, emu, ['plan', dir, '--state', state])) });
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
export function scaleTargets(scale: Array<{ n: number; step: string; cpu_ms: number; max_rss_mb: number }>) {
  if (scale.length < 3) return {};
  const out: Record<string, boolean> = {};
  for (const what of ['plan', 'apply']) {
    const [a, b, c] = scale.filter((r) => r.step.startsWith(`${what},`));
    if (!c) continue;
    const line = (k: 'cpu_ms' | 'max_rss_mb') => a[k] + ((b[k] - a[k]) / (b.n - a.n)) * (c.n - a.n);
    out[`${what}_cpu_growth_at_most_linear`] = c.cpu_ms <= 1.1 * line('cpu_ms');
    out[`${what}_rss_growth_at_most_linear`] = c.max_rss_mb <= 1.1 * line('max_rss_mb');
    out[`${what}_rss_at_most_300mb_at_${c.n}`] = c.max_rss_mb <= 300;
  }
  const plan = scale.filter((r) => r.step.startsWith('plan,')).at(-1)!;
  out[`plan_cpu_at_most_8s_at_${plan.n}`] = plan.cpu_ms <= 8000;
  return out;
}
