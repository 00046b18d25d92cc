// How commands reach the state: read it (plan, state list), or hold its lock for a run that writes it (apply,
// export, state mv/forget/push). Either way the backend is closed after, which releases the lock.
import { isAbsolute, relative } from 'node:path';
import { writerOf, type StateBackend } from '../state/backend.js';
import { lockBoundOf } from '../state/lease.js';
import { openBackend } from '../state/open.js';
import { State } from '../state/state.js';
import type { Io } from '../types.js';
import type { StateInputs } from './inputs.js';
import { wholeSeconds } from './options.js';

export function stateBackend(opts: StateInputs, io: Io): Promise<StateBackend> {
  return openBackend(opts.state, {
    configuration: opts.configuration,
    environment: opts.envName,
    writer: writerOf(io.env),
    timeoutMs: opts.timeoutMs,
    lockBoundMs: lockBoundOf(io.env),
  });
}

/** Runs `use` with the backend open, and closes it after, whatever happens. */
export async function withBackend<T>(
  opts: StateInputs,
  io: Io,
  use: (backend: StateBackend) => Promise<T>,
): Promise<T> {
  const backend = await stateBackend(opts, io);
  try {
    return await use(backend);
  } finally {
    await backend.close();
  }
}

/** The state as it is now, without its lock (a plan, a listing): nothing is written through it. */
export const readState = (opts: StateInputs, io: Io): Promise<State> =>
  withBackend(opts, io, (backend) => State.open(backend));

/** Runs `use` holding the state's lock (waiting up to --lock-timeout); the state is read by `use`, under it. */
export function withStateLock<T>(
  opts: StateInputs,
  io: Io,
  lockTimeout: string | undefined,
  use: (backend: StateBackend) => Promise<T>,
): Promise<T> {
  const timeoutMs = wholeSeconds('--lock-timeout', lockTimeout, 0, 0) * 1000;
  return withBackend(opts, io, async (backend) => {
    await backend.lock(timeoutMs);
    return use(backend);
  });
}

/**
 * The state as the user would name it: a file relative to the working directory when it is below it; a database
 * by its URL with the password masked.
 */
export function stateShown(opts: Pick<StateInputs, 'state'>, io: Io): string {
  if (opts.state.kind === 'postgres') return opts.state.pg.shown;
  const path = opts.state.path;
  const rel = relative(io.cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
