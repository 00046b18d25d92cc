// The benchmark's rate-limit rows (bench/run.ts runs them on its emulator at 20 ms latency): the plan against an
// emulator limited to 200 requests a second (--rate-limit 200; its answers carry X-RateLimit headers, which tapedeck
// does not read), and the plan capped by tapedeck's --max-rps with the emulator unlimited; and the first again with
// no X-RateLimit headers (the live platform publishes none). In both the rate is learnt from the 429s. The first and
// the third are judged on wall time against what the limit allows and on its share of 429s, the second on the most
// requests the emulator received in any one second. `--rate-only` runs these rows alone (rateOnly, below).

export const RATE_LIMIT = 200;
export const MAX_RPS = 300;

interface Measured {
  wall_ms: number;
}
interface RateEmulator {
  url: string;
  stats(): Promise<{ reads: number; writes: number; limited: number }>;
  ask<T>(message: object): Promise<T>;
}

export interface RateRow {
  step: string;
  wall_ms: number;
  /** the requests the emulator served (429s not counted) over the rate: the least time they can take */
  floor_ms: number;
  ratio: number;
  served: number;
  answered_429: number;
  share_429: number;
  /** the most requests the emulator received within any one second */
  busiest_second: number;
}

async function rateStep(
  name: string,
  emu: RateEmulator,
  run: (args: string[]) => Promise<Measured>,
  cliArgs: string[],
  limits: string[],
  rate: number,
  headers = true,
): Promise<RateRow> {
  await emu.ask({ rateLimits: limits, headers }); // full buckets, and a call log of this step alone
  const before = await emu.stats();
  const m = await run([...cliArgs, '--base-url', emu.url]);
  const after = await emu.stats();
  const served = after.reads + after.writes - before.reads - before.writes;
  const limited = after.limited - before.limited;
  const { busiest } = await emu.ask<{ busiest: number }>({ busiest: true });
  const floor = Math.round((served / rate) * 1000);
  return {
    step: name,
    wall_ms: m.wall_ms,
    floor_ms: floor,
    ratio: +(m.wall_ms / floor).toFixed(3),
    served,
    answered_429: limited,
    share_429: +(limited / (served + limited)).toFixed(4),
    busiest_second: busiest,
  };
}

/** Both rows, their targets, and their table as text; `cliArgs` is the plan command without --base-url. */
export async function rateLimitSteps(emu: RateEmulator, run: (args: string[]) => Promise<Measured>, cliArgs: string[]) {
  const rows: RateRow[] = [];
  try {
    rows.push(
      await rateStep(`plan, emulator at ${RATE_LIMIT} rps`, emu, run, cliArgs, [String(RATE_LIMIT)], RATE_LIMIT),
    );
    rows.push(
      await rateStep(`plan, --max-rps ${MAX_RPS}`, emu, run, [...cliArgs, '--max-rps', String(MAX_RPS)], [], MAX_RPS),
    );
    rows.push(
      await rateStep(`plan, ${RATE_LIMIT} rps, no headers`, emu, run, cliArgs, [String(RATE_LIMIT)], RATE_LIMIT, false),
    );
  } finally {
    await emu.ask({ rateLimits: [], headers: true });
  }
  const line = (cells: (string | number)[]) =>
    `${String(cells[0]).padEnd(26)} ${cells
      .slice(1)
      .map((c, i) => String(c).padStart(i === 0 ? 7 : 6))
      .join(' ')}\n`;
  const table =
    `\nrate limits (floor: the requests served over the rate; the emulator's burst of one second can beat it):\n` +
    line(['step', 'wall ms', 'floor', 'ratio', 'served', '429s', 'share', 'max/1s']) +
    rows
      .map((r) =>
        line([
          r.step,
          r.wall_ms,
          r.floor_ms,
          r.ratio.toFixed(2),
          r.served,
          r.answered_429,
          `${(r.share_429 * 100).toFixed(2)}%`,
          r.busiest_second,
        ]),
      )
      .join('');
  const [limited, capped, unpublished] = rows;
  const targets = {
    // On the exact times, as the other targets.
    rate_limited_plan_within_1_1x_limit: limited.wall_ms <= 1.1 * limited.floor_ms,
    rate_limited_plan_under_1pct_429: limited.share_429 < 0.01,
    max_rps_never_exceeded_in_any_second: capped.busiest_second <= MAX_RPS,
    no_header_plan_within_1_1x_limit: unpublished.wall_ms <= 1.1 * unpublished.floor_ms,
    no_header_plan_under_1pct_429: unpublished.share_429 < 0.01,
  };
  return { rows, targets, table };
}

/** `--rate-only`: the state made by one apply (as in the full run), then the three rows `runs` times, each printed. */
export async function rateOnly(
  emu: RateEmulator,
  run: (args: string[]) => Promise<Measured>,
  dir: string,
  runs: number,
  log: (s: string) => void,
) {
  const state = `${dir}/bench.state.json`;
  await run(['apply', dir, '--state', state, '--yes', '--base-url', emu.url]);
  const results = [];
  for (let i = 0; i < runs; i++) {
    const r = await rateLimitSteps(emu, run, ['plan', dir, '--state', state, '--concurrency', '16']);
    log(r.table);
    for (const [name, ok] of Object.entries(r.targets)) log(`  ${ok ? 'ok  ' : 'MISS'} ${name}\n`);
    results.push({ rows: r.rows, targets: r.targets });
  }
  return results;
}
