// `tapedeck import ADDRESS ID`: Terraform's import. An existing resource is bound to a document's address in the
// state, under the state's lock, after the platform confirmed it has that id for that kind (in the document's
// project); the next plan then shows only how it differs from the document. Nothing is written to the platform.
import { ApiError, UserError } from '../../errors.js';
import { readShapeOf } from '../../kinds/access.js';
import { readPath } from '../../kinds/paths.js';
import type { KindDef } from '../../kinds/types.js';
import { identityFields } from '../../resolve/identity.js';
import type { Client } from '../../remote/client.js';
import { unwrap } from '../../live/list.js';
import { desiredOf } from '../../resolve/desired.js';
import { hasReference } from '../../resolve/refs.js';
import { oneLine } from '../../util/escape.js';
import { resourceModel } from '../../schema/model.js';
import { deepEqual, normalize, type JsonObject } from '../../schema/values.js';
import { State } from '../../state/state.js';
import type { Document } from '../../types.js';
import { loadDocuments } from '../../run/check.js';
import type { Io } from '../io.js';
import { buildOptions } from '../../run/options.js';
import { refuseForeignOwners } from '../../run/owners.js';
import { baseUrl, makeClient } from '../../run/pipeline.js';
import { withStateLock } from '../../run/state-access.js';
import type { LockFlags } from './state.js';

/** The document at the address, and a kind that can be imported: one named by an id the document leaves out. */
function importable(docs: Document[], address: string, id: string, kinds: (kind: string) => KindDef | undefined) {
  const doc = docs.find((d) => d.address === address);
  const refuse = (why: string) => new UserError(`${address}: ${why}`);
  if (!doc)
    throw refuse("no document declares it; write the document first (import binds a resource to a document's address)");
  const k = kinds(doc.kind)!;
  if (k.identity.by === 'key') {
    throw refuse(
      `a ${k.kind} is named by spec.${k.identity.field}, not by an id: the document names it already, nothing to import`,
    );
  }
  if (doc.id !== undefined)
    throw refuse(`the document names its ${k.kind} by id (${doc.id}) already: nothing to import`);
  const other = docs.find((d) => d.kind === doc.kind && d.id === id);
  if (other)
    throw new UserError(`${id} is the ${k.kind} that ${other.address} names by id; one resource has one address`, {
      code: 'E_STATE_MISMATCH',
    });
  return { doc, k };
}

/** The live resource, or a refusal naming why: no such id for this kind, or another project than the document's. */
async function readLive(
  client: Client,
  k: KindDef,
  doc: Document,
  id: string,
  desired: JsonObject,
): Promise<JsonObject> {
  let live: JsonObject;
  try {
    live = unwrap(readShapeOf(k), (await client.call('GET', readPath(k, { id, spec: desired }))).body);
  } catch (e) {
    if (!(e instanceof ApiError && (e.status === 404 || e.status === 400))) throw e;
    const scoped = k.read.query ? ' with the base type and project the document names' : '';
    throw new UserError(
      `the platform has no ${k.kind} ${oneLine(id)}${scoped} (an id of another kind is not one); nothing was written`,
      { code: 'E_NOT_FOUND' },
    );
  }
  if (live.id !== undefined && String(live.id) !== id) {
    throw new UserError(
      `the platform answered ${k.kind} ${oneLine(String(live.id))} for ${oneLine(id)}; nothing was written`,
      { code: 'E_API' },
    );
  }
  const model = resourceModel(k.schema);
  for (const f of identityFields(model)) {
    const [want, has] = [normalize(model.props![f], desired[f]), normalize(model.props![f], live[f])];
    if (want === undefined || (typeof want === 'string' && hasReference(want)) || deepEqual(want ?? null, has ?? null))
      continue;
    const says = `has ${f} ${JSON.stringify(has)}, the document says ${JSON.stringify(want)}`;
    throw new UserError(
      `${doc.address}: ${k.kind} ${oneLine(id)} ${says}: that is another resource; nothing was written`,
      { code: 'E_NOT_FOUND' },
    );
  }
  return live;
}

export async function importCommand(address: string, id: string, dir: string | undefined, flags: LockFlags, io: Io) {
  const opts = buildOptions(dir, flags, io);
  if (!id.trim() || /[\s/]/.test(id)) {
    throw new UserError(`${JSON.stringify(id)} is not an id: give the resource's server id, e.g. off_8Hk2`);
  }
  const { doc, k } = importable(loadDocuments(opts, io).docs, address, id, (kind) => opts.registry.get(kind));
  const client = makeClient(opts, io);
  try {
    return await withStateLock(opts, io, flags.lockTimeout, async (backend) => {
      const state = await State.open(backend);
      state.bindTo({ origin: baseUrl(opts).origin, environment: opts.envName }, opts.configuration);
      const had = state.entry(address);
      // A released entry with this very id is taken back; any other entry at the address is someone's already.
      if (had && !(had.released_at && had.id === id)) {
        const which = had.id ? ` (${had.id}${had.released_at ? ', released' : ''})` : '';
        const fix = `run \`tapedeck state forget ${address}\` first if it should name another resource`;
        throw new UserError(`${address} is in the state already${which}: ${fix}`, { code: 'E_STATE_MISMATCH' });
      }
      const holder = Object.entries(state.data.resources).find(
        ([a, e]) => a !== address && e.id === id && e.kind === k.kind,
      );
      if (holder) {
        const [a, e] = holder;
        const held = e.released_at
          ? `in the state as ${a} (released): take it back with \`moved_from: ${a}\` in the document`
          : `managed as ${a}`;
        throw new UserError(`${k.kind} ${id} is already ${held}; one resource has one address`, {
          code: 'E_STATE_MISMATCH',
        });
      }
      await refuseForeignOwners([{ kind: k.kind, id, address }], state, opts);
      await readLive(client, k, doc, id, desiredOf(doc, k, true, (a) => state.idOf(a)).desired);
      state.set(address, { kind: k.kind, id });
      state.writtenBy({ command: 'import' });
      await state.save();
      const next = 'The platform was not changed; the next plan shows how it differs from the document.';
      io.out(`Imported ${k.kind} ${id} as ${address} in the state ${state.where}. ${next}\n`);
      return 0;
    });
  } finally {
    await client.close();
  }
}
