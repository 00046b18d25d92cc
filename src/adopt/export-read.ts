// Export's reading: what to read by id (the state's entries, --id), each read by its GET, then every kind's lists.
import { ApiError, errorLine, UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { KindDef } from '../kinds/types.js';
import { listSpecOf, readBackOf } from '../kinds/access.js';
import { listAll, unwrap } from '../live/list.js';
import { fieldAt, resourceModel } from '../schema/model.js';
import type { JsonObject } from '../schema/values.js';
import type { Client } from '../remote/client.js';
import type { State } from '../state/state.js';
import { mapPool } from '../util/pool.js';
import type { Document } from '../types.js';

export interface ExportTarget {
  kind: string;
  id: string;
  /** the address the state knows it by */
  address?: string;
  /** what the state holds of its fields: a read may need some (a content type's base_type and project) */
  spec?: JsonObject;
}

export type ExportOptions = {
  ids: ExportTarget[];
  project?: string;
  concurrency: number;
  warn: (m: string) => void;
  managed: Document[];
};

export type Found = Map<string, { k: KindDef; id: string; address?: string; resource: JsonObject }>;
export const keyOf = (k: { kind: string }, id: string) => `${k.kind} ${id}`;

/**
 * The scopes a kind is listed in: the project (`--project`), and each known value of an enum the list is scoped by
 * (the live API lists content types one base type at a time).
 */
function listScopes(k: KindDef, project: string | undefined): JsonObject[] {
  const model = resourceModel(k.schema);
  let scopes: JsonObject[] = [{}];
  for (const name of listSpecOf(k)?.scope ?? []) {
    const f = fieldAt(model, name);
    const values = f?.ref?.includes('project')
      ? [project ?? '']
      : f?.type === 'enum'
        ? (f.known ?? []).filter((v) => v !== f.zero)
        : [''];
    scopes = scopes.flatMap((s) => values.map((v) => (v ? { ...s, [name]: v } : s)));
  }
  return scopes;
}

/** What to export by id: the state's entries no document declares (a document's is that document's: not read, and
 *  its id is skipped later), then the --id targets. */
export function exportTargets(registry: Registry, state: State, declared: Set<string>, ids: ExportTarget[]) {
  const targets: ExportTarget[] = [
    ...Object.entries(state.data.resources)
      .filter(([a, e]) => e.id && !declared.has(a))
      .map(([address, e]) => ({ kind: e.kind, id: e.id!, address, spec: (e.fields ?? {}) as JsonObject })),
    ...ids,
  ];
  // --id kinds are checked where they are parsed; a state entry may name a kind this version does not have.
  const unknown = targets.find((t) => !registry.get(t.kind));
  if (unknown)
    throw new UserError(
      `${state.backend.label}: ${unknown.address} is of kind ${unknown.kind}, which this tapedeck does not know (drop it with tapedeck state forget)`,
      { code: 'E_STATE_INVALID' },
    );
  return targets;
}

/** Each target read by its own GET, into `found`. */
export async function readEach(
  registry: Registry,
  client: Client,
  targets: ExportTarget[],
  concurrency: number,
  found: Found,
) {
  await mapPool(targets, concurrency, async (t) => {
    const k = registry.get(t.kind)!;
    const read = readBackOf(k, { id: t.id, key: k.identity.by === 'key' ? t.id : undefined, spec: t.spec ?? {} });
    const resource = unwrap(read, (await client.call('GET', read.path)).body, t.id);
    found.set(keyOf(k, t.id), { k, id: t.id, address: t.address, resource });
  });
}

/**
 * Every kind's lists, into `found` (what was read by id stays as read). A list the platform refuses (one that needs
 * a project, say), or one connection lost, costs that kind's listing, not the export. A platform that answers
 * nothing (every read failed without an answer; `answered`: some read by id did) or refuses the token fails the
 * export instead: its error goes up, for the one line plan prints (cli/reach.ts).
 */
export async function listEveryKind(
  registry: Registry,
  client: Client,
  opts: Pick<ExportOptions, 'project' | 'warn'>,
  answered: boolean,
  found: Found,
) {
  const refused: { kind: string; error: unknown }[] = [];
  for (const k of registry.kinds) {
    const list = listSpecOf(k);
    if (!list) continue;
    for (const scope of listScopes(k, opts.project)) {
      const items = await listAll(client, list, scope).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) throw e;
        refused.push({ kind: k.kind, error: e });
        return undefined;
      });
      if (!items) continue;
      answered = true;
      for (const r of items) {
        const id = String(r.id);
        if (!found.has(keyOf(k, id))) found.set(keyOf(k, id), { k, id, resource: r });
      }
    }
  }
  const noAnswer = refused.find(
    (f) => f.error instanceof ApiError && f.error.status === 0 && f.error.reason !== 'deadline_exceeded',
  );
  if (!answered && noAnswer) throw noAnswer.error;
  for (const f of refused)
    opts.warn(`warning: could not list ${f.kind} (${errorLine(f.error)})${opts.project ? '' : '; --project may help'}`);
}
