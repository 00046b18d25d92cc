// Progress while reading and applying many resources: a self-updating line on a terminal, plain periodic lines
// in CI (CI=true), nothing otherwise or with --quiet. Always on stderr, so stdout stays the command's output.
import type { Io } from '../types.js';

export interface Progress {
  tick(): void;
  done(): void;
}

export type ProgressMode = 'tty' | 'ci' | 'off';

export function progressMode(io: Io, quiet: boolean): ProgressMode {
  if (quiet) return 'off';
  if (io.env.CI === 'true' || io.env.CI === '1') return 'ci';
  return io.isTTY ? 'tty' : 'off';
}

/** `every`: ms between CI lines (TAPEDECK_PROGRESS_INTERVAL overrides, for slow or chatty pipelines). */
export function progress(io: Io, mode: ProgressMode, label: string, total: number): Progress {
  if (mode === 'off' || total === 0) return { tick: () => {}, done: () => {} };
  const started = Date.now();
  const every = mode === 'ci' ? Number(io.env.TAPEDECK_PROGRESS_INTERVAL ?? 10_000) : 100;
  let n = 0;
  let last = 0;
  const line = () => `${label} ${n}/${total}`;
  if (mode === 'ci') io.err(`${label} ${total} resources...\n`);
  return {
    tick() {
      n++;
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      io.err(mode === 'tty' ? `\r${line()}` : `${line()} (${Math.round((now - started) / 1000)} s)\n`);
    },
    done() {
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      io.err(mode === 'tty' ? '\r\x1b[2K' : `${label} ${n}/${total} done in ${secs} s\n`);
    },
  };
}
