// One configuration made ready to reconcile: its settings (the flags over its tapedeck.yaml's agent: section), its
// run's options from the commit it starts on (the platform pinned, a file state on the agent's disk), and the parts
// its loop runs with. A configuration that cannot be made (its project file invalid, a platform the agent does not
// run against) throws; with several configurations that one alone is refused (fleet.ts).
import { join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { loadProject } from '../project/project.js';
import { formatIssue } from '../report/text.js';
import { buildOptions, type CommonFlags, type RunOptions } from '../run/options.js';
import { stateBackend, stateShown } from '../run/state-access.js';
import type { Io } from '../types.js';
import type { Agent, AgentParts } from './agent.js';
import type { CommitSource } from './git.js';
import type { Log } from './log.js';
import type { AgentMetrics } from './metrics.js';
import type { Notifier } from './notify.js';
import { pinSettings, type Pinned } from './pinned.js';
import { agentSettings, type AgentFlags, type AgentSettings } from './settings.js';
import type { Slots } from './slots.js';

/** What every configuration of one agent shares. */
export interface Shared {
  flags: AgentFlags;
  /** the run's flags, paths on the agent's machine made absolute */
  runFlags: CommonFlags;
  io: Io;
  mask: (t: string) => string;
  log: Log;
  metrics: AgentMetrics;
  notifier: Notifier;
  lockCheckMs: number;
  /** several configurations (fleet.ts) */
  fleet?: { slots: Slots; assigned: (configuration: string) => boolean };
}

/**
 * The runs' options, from the first commit. A file state lives on the agent's disk, never in its checkout (which is
 * cleaned at every commit): --state FILE, else .tapedeck/<env>.state.json in the working directory (with several
 * configurations, .tapedeck/<configuration's directory>/<env>.state.json: one file each).
 */
export function firstOptions(
  flags: CommonFlags,
  settings: AgentSettings,
  dir: string,
  io: Io,
  fleet: boolean,
): { opts: RunOptions; flags: CommonFlags; pinned: Pinned } {
  const runIo = { ...io, cwd: dir };
  const configDir = join(dir, settings.path);
  const role = settings.autoApply ? ('apply' as const) : ('plan' as const);
  const opts = buildOptions(configDir, { ...flags, quiet: true }, runIo, { role });
  // Where the token goes is the operator's: a platform the repository names is the first commit's, for good.
  flags = { ...flags, baseUrl: flags.baseUrl ?? opts.baseUrl };
  // So is what the first commit says of the state, the configuration and the token's source (pinned.ts).
  const pinned = pinSettings(opts, flags.baseUrl);
  if (opts.state.kind !== 'file' || flags.state) return { opts, flags, pinned };
  if (opts.project?.environments?.[opts.envName]?.state) {
    throw new UserError(
      `tapedeck.yaml names a state file for environment ${opts.envName}, inside the agent's checkout, which is ` +
        `replaced at every commit: give the agent --state FILE (on its own disk) or a postgres:// state`,
    );
  }
  const under = fleet && settings.path !== '.' ? settings.path : '';
  const state = resolve(io.cwd, '.tapedeck', under, `${opts.envName}.state.json`);
  const onDisk = { ...flags, state };
  return { opts: buildOptions(configDir, { ...onDisk, quiet: true }, runIo, { role }), flags: onDisk, pinned };
}

/** A configuration's problem as one line: its project file's first issue, located, or the error's own. */
function projectProblem(path: string, dir: string): UserError | undefined {
  const { issues } = loadProject(join(dir, path), dir);
  const errors = issues.filter((i) => i.severity === 'error');
  if (!errors.length) return undefined;
  return new UserError(`${errors.length} error${errors.length === 1 ? '' : 's'}; first: ${formatIssue(errors[0])}`, {
    code: 'E_VALIDATION',
  });
}

/** The parts of one configuration's loop; throws (a UserError) when it cannot be made from this commit. */
export function configurationParts(path: string, source: CommitSource, s: Shared): AgentParts {
  const fleet = !!s.fleet;
  if (fleet) {
    const problem = projectProblem(path, source.dir);
    if (problem) throw problem;
  }
  const { project } = loadProject(join(source.dir, path), source.dir);
  const settings = agentSettings(s.flags, project?.agent, path);
  const { opts, flags, pinned } = firstOptions(s.runFlags, settings, source.dir, s.io, fleet);
  opts.token(); // a missing or unusable token stops the start (or, with several, refuses this configuration)
  const log: Log = fleet ? (level, msg, fields) => s.log(level, msg, { configuration: path, ...fields }) : s.log;
  return {
    settings,
    configuration: path,
    environment: opts.envName,
    stateShown: stateShown(opts, s.io),
    sharedState: opts.state.kind === 'postgres',
    metrics: s.metrics.of(path),
    notifier: s.notifier,
    log,
    mask: s.mask,
    openBackend: () => stateBackend(opts, s.io),
    lockCheckMs: s.lockCheckMs,
    run: { checkout: source, path, flags, io: s.io, pinned },
    ...(s.fleet ? { fleet: true, slots: s.fleet.slots, assigned: () => s.fleet!.assigned(path) } : {}),
  };
}

export type { Agent };
