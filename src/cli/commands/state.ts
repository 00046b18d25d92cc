import { UserError } from '../../errors.js';
import { renderers } from '../../report/formats.js';
import type { Outcome } from '../../report/state-output.js';
import { allSchemas } from '../../schema/model.js';
import { State } from '../../state/state.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../../run/options.js';
import { readState, withStateLock } from '../../run/state-access.js';

export type LockFlags = CommonFlags & { lockTimeout?: string };

export async function stateList(dir: string | undefined, flags: CommonFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const state = await readState(opts, io);
  state.bindConfiguration(opts.configuration);
  const resources = Object.fromEntries(
    Object.entries(state.data.resources).map(([a, e]) => [
      a,
      {
        kind: e.kind,
        ...(e.id ? { id: e.id } : {}),
        ...(e.released_at ? { released: true, released_at: e.released_at } : {}),
      },
    ]),
  );
  io.out(renderers[opts.format].listing({ where: state.where, resources }));
  return 0;
}

/** A hand edit of the state: loaded, changed and saved under the state's lock, so no apply runs meanwhile. */
async function editState(
  dir: string | undefined,
  flags: LockFlags,
  io: Io,
  command: string,
  edit: (state: State, path: string) => Outcome,
): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  return withStateLock(opts, io, flags.lockTimeout, async (backend) => {
    const state = await State.open(backend);
    state.bindConfiguration(opts.configuration);
    const done = edit(state, state.where);
    state.writtenBy({ command });
    await state.save();
    io.out(renderers[opts.format].outcome(done));
    return 0;
  });
}

const missing = (address: string, path: string) =>
  new UserError(`${address} is not in the state ${path} (see tapedeck state list)`);

export function stateForget(address: string, dir: string | undefined, flags: LockFlags, io: Io): Promise<number> {
  return editState(dir, flags, io, 'state forget', (state, path) => {
    const had = state.entry(address);
    if (!had) throw missing(address, path);
    state.forget(address);
    const message = `Forgot ${address}${had.id ? ` (${had.id})` : ''}. The platform was not changed; the next plan treats it as unknown.`;
    return { message, data: { forgotten: address, ...(had.id ? { id: had.id } : {}) } };
  });
}

/** Kind and name of an address; NEW's name must be one a document can have, or no document could ever claim it. */
function parseAddress(address: string, asNew = false): { kind: string; name: string } {
  const m = /^([A-Za-z]+)\/(.+)$/.exec(address);
  if (!m) throw new UserError(`${address} is not an address: write Kind/name, e.g. Offer/premium`);
  const rule = (allSchemas().get('common.schema.json') as { $defs: { Name: { pattern: string; 'x-message': string } } })
    .$defs.Name;
  if (asNew && !new RegExp(rule.pattern).test(m[2]))
    throw new UserError(`${address}: ${JSON.stringify(m[2])} ${rule['x-message']}`);
  return { kind: m[1], name: m[2] };
}

/** Terraform's `state mv`: the resource keeps its id and last applied fields under a new address of the same kind. */
export function stateMove(
  from: string,
  to: string,
  dir: string | undefined,
  flags: LockFlags,
  io: Io,
): Promise<number> {
  const [a, b] = [parseAddress(from), parseAddress(to, true)];
  if (a.kind !== b.kind)
    throw new UserError(`state mv moves an entry within one kind, not from ${a.kind} to ${b.kind}`);
  return editState(dir, flags, io, 'state mv', (state, path) => {
    const entry = state.entry(from);
    if (!entry) throw missing(from, path);
    const taken = state.entry(to);
    if (taken)
      throw new UserError(
        `${to} is in the state already${taken.id ? ` (${taken.id})` : ''}: forget it first, or choose another name`,
      );
    state.forget(from);
    state.set(to, entry);
    const message = `Moved ${from} to ${to}${entry.id ? ` (${entry.id})` : ''}. The platform was not changed; name the document ${b.name}.`;
    return { message, data: { moved: { from, to }, ...(entry.id ? { id: entry.id } : {}) } };
  });
}
