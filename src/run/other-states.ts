// A plan that creates against a new state names the other states of its configuration in sight: the resources may
// be recorded there (environments added to a working setup, TAPEDECK_STATE_URL exported while planning another
// environment, a database pointed at before `state push`), and creating them again would duplicate them for good.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isPostgresUrl, parsePgUrl } from '../state/postgres-url.js';
import { State } from '../state/state.js';
import type { Io } from '../types.js';
import type { RunOptions } from './options.js';

/** What finding the other states of the configuration reads: where this one is, the directory, the project. */
export type StatesInSight = Pick<RunOptions, 'state' | 'dir' | 'project' | 'envName'>;

/**
 * How many resources a state file records, where it may hold this environment's: undefined when it cannot be read
 * as one, was moved by state migrate (a backup: its resources are another state's), or is the state of another
 * environment this configuration has (that environment's, in use: moving it here would make two owners).
 */
function recorded(file: string, opts: Pick<RunOptions, 'envName' | 'project'>): number | undefined {
  try {
    const { data } = State.load(file);
    const env = data.platform?.environment;
    if (data.moved_to || (env && env !== opts.envName && opts.project?.environments?.[env])) return undefined;
    return Object.keys(data.resources).length;
  } catch {
    return undefined;
  }
}

/** The state files of this configuration other than the one in use (DIR/.tapedeck, the environments' files), and
 *  the database URLs its environments name. */
export function statesInSight(opts: StatesInSight): { files: string[]; urls: string[] } {
  const here = opts.state.kind === 'file' ? resolve(opts.state.path) : undefined;
  const files = new Set<string>();
  const folder = join(opts.dir, '.tapedeck');
  if (existsSync(folder))
    for (const f of readdirSync(folder)) if (f.endsWith('.state.json')) files.add(join(folder, f));
  const urls: string[] = [];
  for (const env of Object.values(opts.project?.environments ?? {})) {
    if (!env.state) continue;
    if (isPostgresUrl(env.state) || env.state.startsWith('${env.')) urls.push(env.state);
    else files.add(resolve(opts.dir, env.state));
  }
  return { files: [...files].filter((f) => f !== here).sort(), urls };
}

/**
 * The other states in sight, as shown: every state file in DIR/.tapedeck and every file the project's environments
 * name that records resources (with how many), and a database configured but not used by this run (never opened).
 */
export function otherStates(opts: StatesInSight, io: Io): string[] {
  const { files, urls } = statesInSight(opts);
  if (io.env.TAPEDECK_STATE_URL) urls.push(io.env.TAPEDECK_STATE_URL);
  const shown: string[] = [];
  for (const file of files) {
    const n = recorded(file, opts);
    if (n) shown.push(`${relative(io.cwd, file) || file} (${n} resource${n === 1 ? '' : 's'})`);
  }
  if (opts.state.kind === 'file') {
    for (const url of new Set(urls)) {
      try {
        shown.push(`${parsePgUrl(url, 'state', {}).shown} (a database configured for this configuration)`);
      } catch {
        /* a URL that cannot be used is reported where it is used */
      }
    }
  }
  return shown;
}
