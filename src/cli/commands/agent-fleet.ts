// `tapedeck agent` following several configurations (agent/fleet.ts): each found at the first commit made ready on
// its own (one that cannot be is refused alone), the replicas of a shared PostgreSQL state joined, and /status
// listing every configuration. Also what both ways of starting give the command (Start, Running).
import { createHash } from 'node:crypto';
import { Agent } from '../../agent/agent.js';
import { type PathPattern } from '../../agent/configurations.js';
import { Fleet } from '../../agent/fleet.js';
import { shownRepo, type Checkout } from '../../agent/git.js';
import { makeLog, type Fields, type Log } from '../../agent/log.js';
import { Membership } from '../../agent/membership.js';
import { systemClock } from '../../util/clock.js';
import { AgentMetrics } from '../../agent/metrics.js';
import { Notifier } from '../../agent/notify.js';
import { agentSettings, type AgentFlags, type AgentSettings } from '../../agent/settings.js';
import { configurationParts, type Shared } from '../../agent/setup.js';
import { Slots } from '../../agent/slots.js';
import { UserError } from '../../errors.js';
import type { CommonFlags } from '../../run/options.js';
import { namedState } from '../../run/state-location.js';
import { writerOf } from '../../state/backend.js';
import { leaseTimes, lockBoundOf } from '../../state/lease.js';
import { PgReplicas } from '../../state/postgres-replicas.js';
import { tapedeckVersion } from '../../version.js';
import type { Io } from '../io.js';

export interface Start {
  flags: AgentFlags & CommonFlags;
  runFlags: CommonFlags;
  io: Io;
  mask: (t: string) => string;
  checkout: Checkout;
  head: string;
  work: string;
  logAs: { format: 'text' | 'json' };
}

export interface Running {
  settings: AgentSettings;
  log: Log;
  metrics: AgentMetrics;
  notifier: Notifier;
  /** what the `agent started` line says beside the repository */
  started: Fields;
  ready(): boolean;
  status(): object;
  /** a verified push */
  pushed(): void;
  loop(): Promise<void>;
  stop(): void;
}

/** The agent-wide part of /status. */
function header(settings: AgentSettings, role: string): Record<string, unknown> {
  return { version: tapedeckVersion(), role, repository: shownRepo(settings.repo), branch: settings.branch };
}

/** One configuration's /status: as it always was, and the same again as the one entry of `configurations`. */
export function singleStatus(agent: Agent, settings: AgentSettings): object {
  const own = agent.status();
  return { ...header(settings, agent.role), ...own, configurations: [{ ...own, replica: null }] };
}

/** The database every replica shares, when the operator gives one (--state or TAPEDECK_STATE_URL). */
function sharedDatabase(s: Start) {
  const raw = s.runFlags.state ?? s.io.env.TAPEDECK_STATE_URL;
  if (!raw) return undefined;
  const loc = namedState(raw, s.runFlags.state ? '--state' : 'TAPEDECK_STATE_URL', s.io, !!s.runFlags.state);
  if (loc.kind === 'file')
    throw new UserError(
      '--state FILE holds one configuration: with several (--path given more than once, or a glob), give a postgres:// state or none (each configuration then has its own file under .tapedeck/)',
    );
  return loc.pg;
}

/** What the replicas of one fleet have in common: the same repository, branch, paths and environment. */
const fleetKey = (settings: AgentSettings, patterns: PathPattern[], env?: string) =>
  createHash('sha256')
    .update(JSON.stringify([shownRepo(settings.repo), settings.branch, patterns.map((p) => p.dir).sort(), env ?? '']))
    .digest('hex')
    .slice(0, 16);

export async function startFleet(s: Start, patterns: PathPattern[]): Promise<Running> {
  const { io } = s;
  const settings = agentSettings(s.flags, {}, '.');
  const log = makeLog(io, settings.logFormat, !!s.flags.debug);
  const metrics = new AgentMetrics(true);
  const notifier = new Notifier(settings.notify, log, s.mask);
  const lockCheckMs = leaseTimes(lockBoundOf(io.env)).renewMs;
  const pg = sharedDatabase(s);
  const writer = writerOf(io.env);
  const ctx = { configuration: '', environment: s.runFlags.env ?? '', writer, timeoutMs: 10_000 };
  const membership = pg
    ? new Membership(
        new PgReplicas(pg, ctx, fleetKey(settings, patterns, s.runFlags.env)),
        log,
        lockCheckMs,
        io.clock ?? systemClock,
      )
    : undefined;
  const slots = new Slots(settings.parallel);
  const shared: Shared = {
    ...s,
    log,
    metrics,
    notifier,
    lockCheckMs,
    fleet: { slots, assigned: (path) => membership?.assigned(path) ?? true },
  };
  const { fleet, seal } = newFleet(s, patterns, shared, membership, settings.intervalMs);
  await membership?.refresh();
  await fleet.start(s.head);
  // Listed again once the working trees are made: replicas started together (a rollout) then see each other before
  // any takes a configuration, rather than each starting on all of them and giving most up a second later.
  await membership?.refresh();
  seal();
  if (!fleet.entries.size)
    throw new UserError(
      `--path ${patterns.map((p) => p.raw).join(' ')}: no configuration found in ${shownRepo(settings.repo)} at ${s.head.slice(0, 12)} (branch ${settings.branch}); a glob finds the directories that hold a tapedeck.yaml`,
      { code: 'E_INPUT' },
    );
  // File states are one machine's: another agent holding one refuses this start, as with one configuration.
  if (!pg) for (const e of fleet.entries.values()) if (e.agent && !e.agent.shared) await e.agent.lead();
  const state = pg ? pg.shown : 'files under .tapedeck/';
  return {
    settings,
    log,
    metrics,
    notifier,
    started: { paths: patterns.map((p) => p.raw), configurations: fleet.entries.size, state, parallel: slots.size },
    ready: () => fleet.ready,
    status: () => fleetStatus(settings, patterns, s.runFlags.env, state, slots.size, membership, fleet),
    pushed: () => fleet.pushed(),
    loop: () => fleet.loop(),
    stop: () => fleet.stop(),
  };
}

/**
 * The fleet of the configurations `patterns` find, each made ready on its own (one refused is counted and notified
 * alone). The platforms the configurations found at the start name: once `seal`ed, one found later may name only
 * these (the token goes nowhere a push alone decides), unless --base-url names the one platform.
 */
function newFleet(
  s: Start,
  patterns: PathPattern[],
  shared: Shared,
  membership: Membership | undefined,
  intervalMs: number,
) {
  const { log, metrics, notifier } = shared;
  const platforms = new Set<string>();
  let sealed = false;
  const fleet = new Fleet({
    patterns,
    checkout: s.checkout,
    work: s.work,
    log,
    fetchEveryMs: Math.min(1000, intervalMs),
    membership,
    make: (path, source) => {
      const parts = configurationParts(path, source, shared);
      const url = parts.run.flags.baseUrl;
      if (url && !s.runFlags.baseUrl && sealed && !platforms.has(url))
        throw new UserError(
          `${path}: its platform ${url} is not one this agent runs against (${[...platforms].join(', ') || 'none'}): start the agent again (or with --base-url) to follow it`,
          { code: 'E_VALIDATION' },
        );
      if (url) platforms.add(url);
      return new Agent(parts);
    },
    refused: (path, r) => {
      metrics.of(path).run('invalid', 0);
      notifier.notify({
        event: 'invalid',
        configuration: path,
        environment: s.runFlags.env ?? '',
        rejected_commit: r.commit,
        error: r.message,
        error_code: r.code,
        text: `tapedeck ${path}: commit ${r.commit.slice(0, 12)} was not applied: ${r.message}`,
      });
    },
    gone: (path) => metrics.forget(path),
  });
  return { fleet, seal: () => (sealed = true) };
}

/** The fleet's /status: the agent's header, the replica's share, and every configuration's own. */
function fleetStatus(
  settings: AgentSettings,
  patterns: PathPattern[],
  env: string | undefined,
  state: string,
  parallel: number,
  membership: Membership | undefined,
  fleet: Fleet,
): object {
  const configurations = fleet.configurations();
  const role = configurations.some((c) => c.role === 'leader') ? 'leader' : 'standby';
  return {
    ...header(settings, role),
    paths: patterns.map((p) => p.raw),
    environment: env ?? null,
    state,
    auto_apply: settings.autoApply,
    parallel,
    replica: membership?.status() ?? null,
    configurations,
  };
}
