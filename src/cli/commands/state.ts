import { UserError } from '../../errors.js';
import { acquireLock } from '../../state/lock.js';
import { State } from '../../state/state.js';
import type { Io } from '../io.js';
import { buildOptions, positiveInt, type CommonFlags } from '../options.js';

export function stateList(dir: string | undefined, flags: CommonFlags, io: Io): number {
  const opts = buildOptions(dir, flags, io);
  const state = State.load(opts.statePath);
  const entries = Object.entries(state.data.resources);
  if (opts.json) {
    io.out(`${JSON.stringify(Object.fromEntries(entries.map(([a, e]) => [a, { kind: e.kind, ...(e.id ? { id: e.id } : {}) }])), null, 2)}\n`);
  } else if (!entries.length) {
    io.out(`The state ${opts.statePath} holds no resources.\n`);
  } else {
    for (const [address, e] of entries) io.out(`${address}\t${e.id ?? '-'}\n`);
  }
  return 0;
}

export async function stateForget(address: string, dir: string | undefined, flags: CommonFlags & { lockTimeout?: string }, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const release = await acquireLock(opts.statePath, positiveInt('--lock-timeout', flags.lockTimeout, 0, 0) * 1000);
  try {
    const state = State.load(opts.statePath);
    const had = state.entry(address);
    if (!had) throw new UserError(`${address} is not in the state ${opts.statePath} (see tapedeck state list)`);
    state.forget(address);
    state.save();
    io.out(`Forgot ${address}${had.id ? ` (${had.id})` : ''}. The platform was not changed; the next plan treats it as unknown.\n`);
    return 0;
  } finally {
    release();
  }
}
