// The state's versions: `state history` (who wrote which serial, when, from where), `state pull` (the state JSON
// on stdout) and `state push FILE` (a state file written into the state, as when moving a file state into the
// database), which never overwrites a newer serial or another lineage unless forced.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { UserError } from '../../errors.js';
import type { HistoryEntry } from '../../state/backend.js';
import { MAX_STATE_BYTES, parseState, stateDocument, type StateData } from '../../state/state.js';
import { readBounded } from '../../util/files.js';
import type { Io } from '../io.js';
import { buildOptions, positiveInt, type CommonFlags } from '../options.js';
import { withBackend, withStateLock } from '../state-access.js';
import type { LockFlags } from './state.js';

const pad = (rows: string[][]) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}\n`).join('');
};

function historyText(entries: HistoryEntry[]): string {
  const rows = entries.map((e) => [String(e.serial), e.written_at, e.actor, e.host, e.tapedeck_version, e.writes > 1 ? `${e.command} (${e.writes} writes)` : e.command, e.configuration_hash?.slice(0, 12) ?? '-']);
  const table = pad([['SERIAL', 'WRITTEN', 'BY', 'HOST', 'TAPEDECK', 'COMMAND', 'CONFIGURATION'], ...rows]).split('\n');
  // Under its version, each guardrail denial the apply let through, and why.
  return entries.map((e, i) => [table[i + 1], ...(e.allowances ?? []).map((a) => `  allowed ${a.rule}: ${a.reason}`)].join('\n')).reduce((out, row) => `${out}${row}\n`, `${table[0]}\n`);
}

export async function stateHistory(dir: string | undefined, flags: CommonFlags & { limit?: string }, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const limit = positiveInt('--limit', flags.limit, 50);
  const { entries, name } = await withBackend(opts, io, async (b) => ({ entries: await b.history(limit + 1), name: b.name }));
  const shown = entries.slice(0, limit);
  if (opts.format === 'json') {
    io.out(`${JSON.stringify(shown, null, 2)}\n`);
  } else if (!shown.length) {
    io.out(`The state ${name} has no history yet: nothing was written.\n`);
  } else {
    io.out(historyText(shown));
    if (entries.length > limit) io.out(`(older versions not shown: --limit ${limit * 2})\n`);
  }
  return 0;
}

export async function statePull(dir: string | undefined, flags: CommonFlags & { serial?: string }, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const serial = flags.serial === undefined ? undefined : positiveInt('--serial', flags.serial, 1);
  const { text, name } = await withBackend(opts, io, async (b) => {
    if (serial === undefined) return { text: (await b.read()).text, name: b.name };
    const old = await b.version(serial);
    if (old === undefined) throw new UserError(`the state ${b.name} has no version with serial ${serial} (see tapedeck state history)`);
    return { text: old, name: b.name };
  });
  if (text === undefined) {
    io.err(`The state ${name} is empty: nothing was written yet.\n`);
    return 0;
  }
  // A database keeps the document compact; printed, it reads as a state file does (and can be one).
  io.out(opts.state.kind === 'file' && serial === undefined ? (text.endsWith('\n') ? text : `${text}\n`) : `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  return 0;
}

/** Why `incoming` may not replace `current` (a newer serial, another lineage or environment); undefined: it may. */
function pushRefusal(incoming: StateData, current: StateData | undefined, file: string, env: string): string | undefined {
  const other = incoming.platform && incoming.platform.environment !== env;
  if (other) return `${file} is the state of environment ${incoming.platform!.environment}, not ${env}: choose that one with --env`;
  if (!current) return undefined;
  if (current.lineage && current.lineage !== incoming.lineage) return `${file} has lineage ${incoming.lineage}, but the state has ${current.lineage}: they are different histories`;
  if ((current.serial ?? 0) > incoming.serial!) return `the state is at serial ${current.serial}, newer than ${file}'s ${incoming.serial}`;
  if (current.serial === incoming.serial) return `the state is at serial ${current.serial} already, with other contents than ${file}`;
  return undefined;
}

export async function statePush(file: string, dir: string | undefined, flags: LockFlags & { force?: boolean }, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(resolve(io.cwd, file), MAX_STATE_BYTES);
  } catch (e) {
    throw new UserError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!bytes) throw new UserError(`${file} is over ${MAX_STATE_BYTES} bytes: that is not a state file`);
  const incoming = parseState(bytes.toString('utf8'), `state file ${file}`);
  // A state from before lineages and serials: it starts a history of its own.
  incoming.lineage ||= randomUUID();
  incoming.serial ??= 0;
  return withStateLock(opts, io, flags.lockTimeout, async (backend) => {
    const { text, version } = await backend.read();
    const current = text === undefined ? undefined : parseState(text, backend.label);
    const same = current !== undefined && JSON.stringify(stateDocument(current)) === JSON.stringify(stateDocument(incoming));
    if (same) {
      io.out(`The state ${backend.name} holds ${file} already (serial ${incoming.serial}); nothing was written.\n`);
      return 0;
    }
    const refusal = pushRefusal(incoming, current, file, opts.envName);
    if (refusal && !flags.force) throw new UserError(`${refusal}; nothing was written (--force overwrites it; pull a backup first)`);
    // Forced over a newer or unrelated state: a serial above both, so every plan made against either is stale.
    const serial = refusal && current ? Math.max(current.serial ?? 0, incoming.serial!) + 1 : incoming.serial!;
    const pushed = { ...incoming, serial };
    await backend.write(pushed, { lineage: pushed.lineage!, serial }, version, { command: 'state push' });
    const n = Object.keys(incoming.resources).length;
    io.out(`Pushed ${file} (serial ${serial}, lineage ${pushed.lineage}, ${n} resource${n === 1 ? '' : 's'}) to the state ${backend.name}.\n`);
    return 0;
  });
}
