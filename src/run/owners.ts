// One owner per live resource. Two configurations (directories, environments, repositories) that both record one
// live id rewrite each other's changes at every apply, and nothing on the platform says so. Before an apply or an
// import sends anything, the ids it would manage are looked up: in a database state, in the owners table every
// configuration and environment of its schema writes (state/postgres-owners.ts); with file states, in the other
// environments' states of the same directory. Unrelated files elsewhere (another checkout, another machine) are
// not in sight: docs say so.
import { relative } from 'node:path';
import { UserError } from '../errors.js';
import { ownedBy, type Owned } from '../state/postgres-owners.js';
import { State } from '../state/state.js';
import type { Plan } from '../types.js';
import { statesInSight } from './other-states.js';
import type { RunOptions } from './options.js';
import type { StatesInSight } from './other-states.js';

/** Whose resources a plan may write: the run's platform and environment, and the other states in sight. */
export type OwnerInputs = StatesInSight & Pick<RunOptions, 'baseUrl'>;

/** An id this run would manage, and the address it would manage it as. */
export interface Managed {
  kind: string;
  id: string;
  address: string;
}

/** The ids a plan leaves managed by this state: every change with an id but a release or a replace's old one. */
export const managedByPlan = (plan: Plan): Managed[] =>
  plan.changes
    .filter((c) => c.id && c.action !== 'release' && c.action !== 'replace')
    .map((c) => ({ kind: c.kind, id: c.id!, address: c.address }));

/** Refuses, naming the owner, when another configuration or environment manages any of `managed`. */
export async function refuseForeignOwners(managed: Managed[], state: State, opts: OwnerInputs): Promise<void> {
  if (!managed.length) return;
  const owners = state.backend.ownersElsewhere
    ? (await state.backend.ownersElsewhere(managed)).map(inDatabase)
    : fileOwners(managed, opts);
  if (!owners.length) return;
  const as = new Map(managed.map((m) => [`${m.kind} ${m.id}`, m.address]));
  const lines = owners.map(
    (o) => `${as.get(`${o.kind} ${o.id}`)}: ${o.kind} ${o.id} is managed by ${o.owner} as ${o.address}`,
  );
  throw new UserError(
    `${lines.join('; ')}. One live resource has one owner: two that both manage it rewrite each other's changes at every apply. Nothing was sent. Hand it over first (\`tapedeck state forget ${owners[0].address}\` there, or remove its document there and apply: a release), or remove it from this configuration`,
    { code: 'E_OWNED' },
  );
}

type Found = { kind: string; id: string; address: string; owner: string };

const inDatabase = (o: Owned): Found => ({
  ...o,
  owner: `configuration ${o.configuration}, environment ${o.environment}`,
});

/** The owners among the other environments' state files of this directory (moved backups are no one's). */
function fileOwners(managed: Managed[], opts: OwnerInputs): Found[] {
  const wanted = new Set(managed.map((m) => `${m.kind} ${m.id}`));
  const found: Found[] = [];
  for (const file of statesInSight(opts).files) {
    let data;
    try {
      data = State.load(file).data;
    } catch {
      continue; // a file that is no state is reported where it is used
    }
    const env = data.platform?.environment;
    // The same id on another platform is another resource.
    const origin = opts.baseUrl ? new URL(opts.baseUrl).origin : undefined;
    if (!env || env === opts.envName || (origin && data.platform!.origin !== origin)) continue;
    const owner = `environment ${env} (state ${relative(opts.dir, file)})`;
    for (const e of ownedBy(data)) if (wanted.has(`${e.kind} ${e.id}`)) found.push({ ...e, owner });
  }
  return found;
}
