// The state's versions: `state history` (who wrote which serial, when, from where), `state pull` (the state JSON
// on stdout) and `state push FILE` (a state file written into the state, as when moving a file state into the
// database), which never overwrites a newer serial or another lineage unless forced.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { UserError } from '../../errors.js';
import { renderers } from '../../report/formats.js';
import { MAX_STATE_BYTES, parseState, stateDocument, type StateData } from '../../state/state.js';
import { readBounded } from '../../util/files.js';
import type { Io } from '../io.js';
import { buildOptions, positiveInt, type CommonFlags } from '../../run/options.js';
import { withBackend, withStateLock } from '../../run/state-access.js';
import type { LockFlags } from './state.js';

export async function stateHistory(
  dir: string | undefined,
  flags: CommonFlags & { limit?: string },
  io: Io,
): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const limit = positiveInt('--limit', flags.limit, 50);
  const { entries, name } = await withBackend(opts, io, async (b) => ({
    entries: await b.history(limit + 1),
    name: b.name,
  }));
  const more = entries.length > limit ? { limit } : undefined;
  io.out(renderers[opts.format].history({ name, entries: entries.slice(0, limit), ...(more ? { more } : {}) }));
  return 0;
}

export async function statePull(
  dir: string | undefined,
  flags: CommonFlags & { serial?: string },
  io: Io,
): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const serial = flags.serial === undefined ? undefined : positiveInt('--serial', flags.serial, 1);
  const { text, name } = await withBackend(opts, io, async (b) => {
    if (serial === undefined) return { text: (await b.read()).text, name: b.name };
    const old = await b.version(serial);
    if (old === undefined)
      throw new UserError(`the state ${b.name} has no version with serial ${serial} (see tapedeck state history)`);
    return { text: old, name: b.name };
  });
  if (text === undefined) {
    io.err(`The state ${name} is empty: nothing was written yet.\n`);
    return 0;
  }
  // A database keeps the document compact; printed, it reads as a state file does (and can be one).
  io.out(
    opts.state.kind === 'file' && serial === undefined
      ? text.endsWith('\n')
        ? text
        : `${text}\n`
      : `${JSON.stringify(JSON.parse(text), null, 2)}\n`,
  );
  return 0;
}

/** Why `incoming` may not replace `current` (a newer serial, another lineage or environment); undefined: it may. */
function pushRefusal(
  incoming: StateData,
  current: StateData | undefined,
  file: string,
  env: string,
  configuration: string,
): string | undefined {
  const other = incoming.platform && incoming.platform.environment !== env;
  if (other)
    return `${file} is the state of environment ${incoming.platform!.environment}, not ${env}: choose that one with --env, or move it to ${env} with tapedeck state migrate ${file} --env ${env} (--force rebinds it too)`;
  if (incoming.configuration && incoming.configuration !== configuration)
    return `${file} is the state of configuration ${incoming.configuration}, not ${configuration}`;
  if (!current) return undefined;
  if (current.lineage && current.lineage !== incoming.lineage)
    return `${file} has lineage ${incoming.lineage}, but the state has ${current.lineage}: they are different histories`;
  if ((current.serial ?? 0) > incoming.serial!)
    return `the state is at serial ${current.serial}, newer than ${file}'s ${incoming.serial}`;
  if (current.serial === incoming.serial)
    return `the state is at serial ${current.serial} already, with other contents than ${file}`;
  return undefined;
}

export async function statePush(
  file: string,
  dir: string | undefined,
  flags: LockFlags & { force?: boolean },
  io: Io,
): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(resolve(io.cwd, file), MAX_STATE_BYTES);
  } catch (e) {
    throw new UserError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, { code: 'E_INPUT' });
  }
  if (!bytes)
    throw new UserError(`${file} is over ${MAX_STATE_BYTES} bytes: that is not a state file`, { code: 'E_INPUT' });
  const incoming = parseState(bytes.toString('utf8'), `state file ${file}`);
  // A state from before lineages and serials: it starts a history of its own.
  incoming.lineage ||= randomUUID();
  incoming.serial ??= 0;
  return withStateLock(opts, io, flags.lockTimeout, async (backend) => {
    const { text, version } = await backend.read();
    const current = text === undefined ? undefined : parseState(text, backend.label);
    const same =
      current !== undefined && JSON.stringify(stateDocument(current)) === JSON.stringify(stateDocument(incoming));
    const print = (message: string, data: Record<string, unknown>) =>
      io.out(renderers[opts.format].outcome({ message, data }));
    if (same) {
      print(`The state ${backend.name} holds ${file} already (serial ${incoming.serial}); nothing was written.`, {
        pushed: false,
        serial: incoming.serial,
      });
      return 0;
    }
    const refusal = pushRefusal(incoming, current, file, opts.envName, opts.configuration);
    if (refusal && !flags.force)
      throw new UserError(`${refusal}; nothing was written (--force overwrites it; pull a backup first)`, {
        code: 'E_STATE_CONFLICT',
      });
    // Forced over a newer or unrelated state: a serial above both, so every plan made against either is stale.
    const serial = refusal && current ? Math.max(current.serial ?? 0, incoming.serial!) + 1 : incoming.serial!;
    // Forced, it is rebound to this configuration and environment: every command can use it afterwards.
    const platform = incoming.platform && { ...incoming.platform, environment: opts.envName };
    const pushed = refusal
      ? { ...incoming, serial, configuration: opts.configuration, ...(platform ? { platform } : {}) }
      : { ...incoming, serial };
    await backend.write(pushed, { lineage: pushed.lineage!, serial }, version, { command: 'state push' });
    const n = Object.keys(incoming.resources).length;
    print(
      `Pushed ${file} (serial ${serial}, lineage ${pushed.lineage}, ${n} resource${n === 1 ? '' : 's'}) to the state ${backend.name}.`,
      { pushed: true, serial, lineage: pushed.lineage, resources: n },
    );
    return 0;
  });
}
