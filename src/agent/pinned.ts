// What the repository may not move under a running agent: the project file's settings that decide where its token
// goes (the environment's platform), where its state is (and so its lock and its owners), which configuration that
// state records, and where its token is read from on its machine (an environment variable, a file). Anyone who can
// push to the branch could otherwise send the token elsewhere, point the agent at another database, or have it read
// another file or variable of its machine and send that to the platform. They are taken once, when the agent starts
// (the operator's flags, else the first commit), and a later commit that changes one is rejected, located, as any
// invalid commit (reconcile.ts); restarting the agent follows the new setting.
import type { RunOptions } from '../run/options.js';
import type { Issue } from '../types.js';
import { nearestPos } from '../validate/locate.js';

/** The settings' values when the agent started: `base_url` the platform it runs against, the others as written. */
export type Pinned = Record<string, string | undefined>;

interface Setting {
  key: string;
  /** where it stands in the project file (the run's environment is `env`) */
  pointer: (env: string) => string;
  /** its value as the project file writes it (text, to compare) */
  written: (opts: RunOptions) => string | undefined;
  /** the start of the message: what the setting is not */
  isNot: string;
  /** the pinned value differs: the written one is unwritten, or another */
  differs?: (written: string | undefined, pinned: string | undefined) => boolean;
}

const environment = (opts: RunOptions) => opts.project?.environments?.[opts.envName];
const text = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));

const sameUrl = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

const SETTINGS: Setting[] = [
  {
    key: 'base_url',
    pointer: (env) => `/environments/${env}/base_url`,
    written: (opts) => environment(opts)?.base_url,
    isNot: 'the platform this agent runs against',
    // Where a commit names none, the pinned platform is used: only another one is refused.
    differs: (written, pinned) => written !== undefined && pinned !== undefined && !sameUrl(written, pinned),
  },
  {
    key: 'state',
    pointer: (env) => `/environments/${env}/state`,
    written: (opts) => environment(opts)?.state,
    isNot: 'the state this agent started with (its lock and its owners)',
  },
  {
    key: 'token_env',
    pointer: (env) => `/environments/${env}/token_env`,
    written: (opts) => text(environment(opts)?.token_env),
    isNot: 'where this agent started reading its token',
  },
  {
    key: 'token_file',
    pointer: (env) => `/environments/${env}/token_file`,
    written: (opts) => text(environment(opts)?.token_file),
    isNot: 'where this agent started reading its token',
  },
  {
    key: 'name',
    pointer: () => '/name',
    written: (opts) => opts.project?.name,
    isNot: "the configuration this agent's state records",
  },
];

/** The settings as the agent starts: the first commit's (`platform`: the one it runs against, --base-url or that). */
export function pinSettings(first: RunOptions, platform: string | undefined): Pinned {
  const pinned: Pinned = {};
  for (const s of SETTINGS) pinned[s.key] = s.written(first);
  pinned.base_url = platform;
  return pinned;
}

/** A commit's changes to the pinned settings, each an error at its place (or the project file's start). */
export function movedSettings(opts: RunOptions, pinned: Pinned | undefined): Issue[] {
  if (!pinned) return [];
  const issues: Issue[] = [];
  const source = opts.projectSource;
  for (const s of SETTINGS) {
    const written = s.written(opts);
    const differs = s.differs ?? ((w, p) => w !== p);
    if (!differs(written, pinned[s.key])) continue;
    const pointer = s.pointer(opts.envName);
    const label = pointer.slice(1).replace(/\//g, '.');
    // Only the platform is named: a state URL or a file may hold what is not to be shown.
    const what = s.key === 'base_url' ? ` ${written} is not ${s.isNot} (${pinned[s.key]})` : ` is not ${s.isNot}`;
    const change = written === undefined ? ' (it was set when the agent started)' : '';
    issues.push({
      file: source?.file ?? 'tapedeck.yaml',
      ...(source ? { pos: nearestPos(source, written === undefined ? pointer.replace(/\/[^/]+$/, '') : pointer) } : {}),
      message: `${label}:${what}${change}: the repository cannot move what the agent reaches; start the agent again to follow it`,
      severity: 'error',
    });
  }
  return issues;
}
