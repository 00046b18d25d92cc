// `tapedeck state migrate FROM [DIR]`: moves a state to the environment and backend this configuration now uses
// (--env, --state, TAPEDECK_STATE_URL or tapedeck.yaml's state:, as every other command finds it), rebinding it
// to that environment: `default` to `production` after environments were added, a file into PostgreSQL and back.
// Nothing on the platform changes; the next plan shows "No changes". FROM is kept as a backup, marked as moved
// (naming where): no run uses it, and a second migrate of it is refused.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { UserError } from '../../errors.js';
import { writerOf, type StateBackend, type StateLocation } from '../../state/backend.js';
import { openBackend } from '../../state/open.js';
import { movedText, parseState, stateDocument, type StateData } from '../../state/state.js';
import type { Io } from '../io.js';
import { buildOptions, wholeSeconds, type RunOptions } from '../../run/options.js';
import { stateShown, withStateLock } from '../../run/state-access.js';
import { namedState } from '../../run/state-location.js';
import type { LockFlags } from './state.js';

export type MigrateFlags = LockFlags & { fromEnv?: string };

const sameLocation = (a: StateLocation, b: StateLocation, envA: string, envB: string) =>
  a.kind === 'file' && b.kind === 'file'
    ? a.path === b.path
    : a.kind === 'postgres' &&
      b.kind === 'postgres' &&
      a.pg.connect === b.pg.connect &&
      a.pg.schema === b.pg.schema &&
      envA === envB;

/** Where this configuration's state is, as a moved state records it: a file's absolute path, or the database. */
const whereStored = (opts: RunOptions, io: Io) =>
  opts.state.kind === 'file' ? resolve(io.cwd, opts.state.path) : opts.state.pg.shown;

/** A state's entries as stored, to compare two states' contents. */
const entries = (d: StateData) =>
  JSON.stringify(
    stateDocument({ ...d, serial: 0, configuration: undefined, platform: undefined, moved_to: undefined }),
  );

/** Why the state read from FROM cannot move to this configuration's environment; undefined: it can. */
function refusal(data: StateData, from: string, opts: RunOptions): string | undefined {
  if (data.configuration && data.configuration !== opts.configuration)
    return `${from} is the state of configuration ${data.configuration}, not ${opts.configuration}`;
  const base = opts.baseUrl ? new URL(opts.baseUrl).origin : undefined;
  // Ids mean something on one platform only: a state moves between environments of the same platform.
  if (data.platform && base && data.platform.origin !== base)
    return `${from} records resources on ${data.platform.origin}, but environment ${opts.envName} is at ${base}: a state cannot move to another platform`;
  return undefined;
}

export async function stateMigrate(
  from: string,
  dir: string | undefined,
  flags: MigrateFlags,
  io: Io,
): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const source = namedState(from, 'FROM', io);
  const fromEnv = flags.fromEnv ?? opts.envName;
  if (flags.fromEnv !== undefined && !/^[A-Za-z0-9_-]+$/.test(fromEnv))
    throw new UserError(`--from-env ${JSON.stringify(fromEnv)} may only hold letters, digits, - and _`);
  if (sameLocation(source, opts.state, fromEnv, opts.envName))
    throw new UserError(`${from} is the state of environment ${opts.envName} already: nothing to move`);
  const lockMs = wholeSeconds('--lock-timeout', flags.lockTimeout, 0, 0) * 1000;
  const sourceBackend = await openBackend(source, {
    configuration: opts.configuration,
    environment: fromEnv,
    writer: writerOf(io.env),
    timeoutMs: opts.timeoutMs,
  });
  try {
    // Both states are locked: no apply writes either while the state moves.
    await sourceBackend.lock(lockMs);
    const read = await sourceBackend.read();
    const moving = parseState(read.text, sourceBackend.label);
    const shownFrom = source.kind === 'file' ? from : `${sourceBackend.name}`;
    const target = { state: whereStored(opts, io), environment: opts.envName };
    refuseToMove(moving, shownFrom, target, opts);
    return await withStateLock(opts, io, flags.lockTimeout, async (backend) => {
      const { text, version } = await backend.read();
      const current = text === undefined ? undefined : parseState(text, backend.label);
      if (current && Object.keys(current.resources).length) {
        if (current.lineage === moving.lineage && entries(current) === entries(moving)) {
          io.out(`The state ${backend.name} holds ${shownFrom} already; nothing was written.\n`);
          return 0;
        }
        throw new UserError(
          `the state ${backend.name} records ${Object.keys(current.resources).length} resource(s) already; nothing was written (it is not empty: see tapedeck state list; pull a backup, then state forget what it holds, to replace it)`,
          { code: 'E_STATE_MISMATCH' },
        );
      }
      const moved = await writeMoved(backend, version, moving, current, opts);
      // Then FROM is marked as moved, naming where: it stays as a backup that no run uses and no migrate moves again.
      const mark = { ...moving, moved_to: { ...target, at: new Date().toISOString() } };
      const next = { lineage: moving.lineage ?? moved.lineage, serial: (moving.serial ?? 0) + 1 };
      await sourceBackend.write({ ...mark, ...next }, next, read.version, { command: 'state migrate' });
      const { lineage, serial } = moved;
      const n = Object.keys(moved.resources).length;
      io.out(
        `Moved the state of environment ${moving.platform?.environment ?? fromEnv} (${n} resource${n === 1 ? '' : 's'}, lineage ${lineage}) from ${shownFrom} to ${stateShown(opts, io)}, environment ${opts.envName} (serial ${serial}). Nothing on the platform changed. ${shownFrom} is kept as a backup, marked as moved there: no run uses it and no migrate moves it again; remove it once the next plan shows no changes.\n`,
      );
      return 0;
    });
  } finally {
    await sourceBackend.close();
  }
}

/** Why the state read from FROM moves nowhere: moved elsewhere already (a state moves once: a second environment
 *  holding the same ids would rewrite the first one's resources), empty, or another configuration's or platform's. */
function refuseToMove(
  moving: StateData,
  shownFrom: string,
  target: { state: string; environment: string },
  opts: RunOptions,
): void {
  const went = moving.moved_to;
  if (went && (went.state !== target.state || went.environment !== target.environment))
    throw new UserError(
      `${shownFrom} was moved by tapedeck state migrate to ${movedText(went)} already: a state moves once (its resources are that state's); nothing was written`,
      { code: 'E_STATE_MISMATCH' },
    );
  if (!moving.lineage && !Object.keys(moving.resources).length)
    throw new UserError(`${shownFrom} holds no state: nothing to move`, { code: 'E_STATE_INVALID' });
  const problem = refusal(moving, shownFrom, opts);
  if (problem) throw new UserError(`${problem}; nothing was written`, { code: 'E_STATE_MISMATCH' });
}

/** The moved state written here, rebound to this configuration and environment; a serial above both, so a plan
 *  saved against either is stale. */
async function writeMoved(
  backend: StateBackend,
  version: number,
  moving: StateData,
  current: StateData | undefined,
  opts: RunOptions,
): Promise<StateData & { lineage: string; serial: number }> {
  const serial = Math.max(moving.serial ?? 0, current?.serial ?? 0) + 1;
  const lineage = moving.lineage || randomUUID();
  const platform = moving.platform && { ...moving.platform, environment: opts.envName };
  const moved = { ...moving, lineage, serial, configuration: opts.configuration, ...(platform ? { platform } : {}) };
  const { moved_to: _, ...copy } = moved;
  await backend.write(copy, { lineage, serial }, version, { command: 'state migrate' });
  return moved;
}
