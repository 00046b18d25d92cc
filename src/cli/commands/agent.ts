// `tapedeck agent`: the repository cloned into a directory of its own, the settings read from its first commit's
// tapedeck.yaml under the flags, the state's lock taken (a file state held elsewhere refuses the start; a database
// state stands by), the listener started, then the loop until SIGTERM (or `stop`, for tests).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent } from '../../agent/agent.js';
import { Checkout, shownRepo } from '../../agent/git.js';
import { operatorInputs } from './agent-inputs.js';
import { listen } from '../../agent/listener.js';
import { makeLog } from '../../agent/log.js';
import { refusalLog } from '../../agent/refusals.js';
import { AgentMetrics } from '../../agent/metrics.js';
import { Notifier } from '../../agent/notify.js';
import { agentSettings, type AgentFlags } from '../../agent/settings.js';
import { parsePaths, singleConfiguration } from '../../agent/configurations.js';
import { configurationParts } from '../../agent/setup.js';
import { singleStatus, startFleet, type Running, type Start } from './agent-fleet.js';
import { Reported, TapedeckError, UserError } from '../../errors.js';
import { formatIssue } from '../../report/text.js';
import { loadProject } from '../../project/project.js';
import { renderers } from '../../report/formats.js';
import { isPostgresUrl } from '../../state/postgres-url.js';
import { readBounded } from '../../util/files.js';
import type { Io } from '../io.js';
import { MAX_TOKEN_FILE_BYTES, type CommonFlags } from '../../run/options.js';
import { leaseTimes, lockBoundOf } from '../../state/lease.js';
import { stopOnSignals } from '../../util/signals.js';

export interface AgentCommandFlags extends CommonFlags, AgentFlags {}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** A delivery reads the secret's file again once this long has passed since the last read. */
const SECRET_REREAD_MS = 1_000;

/**
 * The webhook secret: the file's content (read again at a delivery a second after the last read, so a rotated
 * secret needs no restart, and a flood of deliveries is not a file read each), or the environment's. A new value
 * is registered for masking once, not at every read.
 */
function webhookSecret(file: string | undefined, io: Io): () => string | undefined {
  let last: { at: number; value: string | undefined } | undefined;
  const read = () => {
    if (last && Date.now() - last.at < SECRET_REREAD_MS) return last.value;
    const s = file
      ? readBounded(file, MAX_TOKEN_FILE_BYTES)?.toString('utf8').trim()
      : io.env.TAPEDECK_WEBHOOK_SECRET?.trim();
    if (s && s !== last?.value) io.secret?.(s);
    last = { at: Date.now(), value: s || undefined };
    return last.value;
  };
  try {
    read();
  } catch (e) {
    throw new UserError(`cannot read --webhook-secret-file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, {
      code: 'E_INPUT',
    });
  }
  return () => {
    try {
      return read();
    } catch {
      return undefined;
    }
  };
}

/**
 * The agent, whose failures to start follow --log-format (or tapedeck.yaml's agent.log_format once it is read): with
 * json, one log line `{"level": "error", "msg": "agent not started", "error", "error_code"}` per problem instead of
 * the CLI's text; exit 1 either way.
 */
export async function agentCommand(flags: AgentCommandFlags, io: Io, stop?: Promise<void>): Promise<number> {
  const logAs = { format: flags.logFormat === 'json' ? ('json' as const) : ('text' as const) };
  try {
    return await runAgent(flags, io, logAs, stop);
  } catch (e) {
    if (logAs.format !== 'json' || !(e instanceof TapedeckError) || (e instanceof Reported && !e.errors.length))
      throw e;
    const log = makeLog(io, 'json', false);
    for (const p of e instanceof Reported ? e.errors : [e])
      log('error', 'agent not started', { error: p.line(), error_code: p.code });
    throw new Reported();
  }
}

async function runAgent(
  flags: AgentCommandFlags,
  io: Io,
  logAs: { format: 'text' | 'json' },
  stop?: Promise<void>,
): Promise<number> {
  const mask = (t: string) => io.mask?.(t) ?? t;
  const inputs = operatorInputs(flags, io);
  const patterns = parsePaths(flags.path ?? []);
  const early = agentSettings({ ...flags, notify: inputs.notify }, {}, patterns[0].dir);
  const abs = (p: string) => resolve(io.cwd, p);
  const runFlags = runFlagsOf(flags, abs);
  const work = mkdtempSync(join(tmpdir(), 'tapedeck-agent-'));
  const stops: (() => void)[] = [];
  try {
    const checkout = new Checkout(early.repo, early.branch, join(work, 'repo'), mask, inputs.access);
    const head = await checkout.clone(io.cwd);
    await checkout.checkout(head);
    const start = { flags: { ...flags, notify: inputs.notify }, runFlags, io, mask, checkout, head, work, logAs };
    const running = singleConfiguration(patterns)
      ? await startSingle(start, patterns[0].dir)
      : await startFleet(start, patterns);
    const { settings, log } = running;
    const listening = await startListener(
      running,
      webhookSecret(settings.webhookSecretFile && abs(settings.webhookSecretFile), io),
    );
    stops.push(
      () => listening.server.close(),
      () => listening.server.closeAllConnections(),
    );
    log('info', 'agent started', {
      listen: listening.url,
      repository: shownRepo(settings.repo),
      branch: settings.branch,
      ...running.started,
      auto_apply: settings.autoApply,
      interval_ms: settings.intervalMs,
    });
    stops.push(onSignals(running, log, stop));
    await running.loop();
    await running.notifier.settle(2000);
    log('info', 'agent stopped: the state is saved and its lock released', {});
    return 0;
  } finally {
    for (const s of stops) s();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The flags every configuration's runs take from the operator; paths on the agent's machine made absolute (`abs`):
 *  the runs' working directory is the checkout. */
function runFlagsOf(flags: AgentCommandFlags, abs: (p: string) => string): CommonFlags {
  return {
    baseUrl: flags.baseUrl,
    tokenFile: flags.tokenFile && abs(flags.tokenFile),
    env: flags.env,
    state: flags.state && !isPostgresUrl(flags.state) ? abs(flags.state) : flags.state,
    concurrency: flags.concurrency,
    maxRps: flags.maxRps,
    // The fleet's API budget, for every configuration's runs (the environment's budget: applies without them).
    budgetMaxRps: flags.budgetMaxRps,
    budgetShare: flags.budgetShare,
    timeout: flags.timeout,
    retries: flags.retries,
    retryDeadline: flags.retryDeadline,
    deadline: flags.deadline,
    insecureHttp: flags.insecureHttp,
    debug: flags.debug,
    var: flags.var,
    varFile: flags.varFile?.map(abs),
    recreateMissing: flags.recreateMissing,
    // What a push may read of the agent's machine is the operator's to name: none unless --document-env names it.
    documentEnv: flags.documentEnv ?? [],
  };
}

/** The HTTP listener (/metrics, /status, /healthz, the webhook) of what runs; a port it cannot have stops the start. */
function startListener(running: Running, secret: () => string | undefined) {
  const { settings, log } = running;
  return listen(settings.listen.host, settings.listen.port, {
    metrics: async () => ({ text: await running.metrics.text(), contentType: running.metrics.contentType }),
    ready: () => running.ready(),
    status: () => running.status(),
    secret,
    branch: settings.branch,
    trigger: () => {
      log('info', 'webhook: a push to the branch, reconciling now', {});
      running.pushed();
    },
    refused: refusalLog(log),
  }).catch((e) => {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      `cannot listen on ${settings.listen.host}:${settings.listen.port}: ${code ?? (e as Error).message}`,
      { code: 'E_NETWORK' },
    );
  });
}

/** One configuration, in the clone itself: the agent as it always was (its start-up errors, status and metrics). */
async function startSingle(s: Start, path: string): Promise<Running> {
  const { checkout, head, io } = s;
  if (!isDirectory(join(checkout.dir, path)))
    throw new UserError(
      `--path ${path}: no such directory in ${shownRepo(s.flags.repo!)} at ${head.slice(0, 12)} (branch ${s.flags.branch ?? 'main'}); give the configuration's directory inside the repository`,
      { code: 'E_INPUT' },
    );
  const { project, issues } = loadProject(join(checkout.dir, path), checkout.dir);
  if (project?.agent?.log_format && !s.flags.logFormat) s.logAs.format = project.agent.log_format;
  if (issues.length) {
    if (s.logAs.format === 'json')
      throw new Reported(issues.map((i) => new UserError(formatIssue(i), { code: 'E_VALIDATION' })));
    io.err(renderers.text.issues({ issues }).err);
    throw new Reported();
  }
  const settings = agentSettings(s.flags, project?.agent, path);
  const debug = !!s.flags.debug;
  const log = makeLog(io, settings.logFormat, debug);
  const metrics = new AgentMetrics();
  const notifier = new Notifier(settings.notify, log, s.mask);
  const shared = { ...s, log, metrics, notifier, lockCheckMs: leaseTimes(lockBoundOf(io.env)).renewMs };
  const parts = configurationParts(path, checkout, shared);
  const agent = new Agent(parts);
  // A file state is one machine's: a second agent (or an apply) holding it refuses this start.
  if (!parts.sharedState) await agent.lead();
  return {
    settings,
    log,
    metrics,
    notifier,
    started: { path: settings.path, environment: parts.environment, state: parts.stateShown },
    ready: () => agent.ready,
    status: () => singleStatus(agent, settings),
    pushed: () => agent.trigger(),
    loop: () => agent.loop(),
    stop: () => agent.stop(),
  };
}

/** SIGTERM (or SIGINT) once: stop after the write in flight. Twice: exit at once (as safe as a killed apply). A
 *  test's `stop` stands for the signal, and the process's signals are left alone. */
function onSignals(agent: { stop(): void }, log: ReturnType<typeof makeLog>, stop?: Promise<void>): () => void {
  const signals = stopOnSignals({
    first: (signal) => {
      log('info', `${signal}: stopping after the write in flight`, {});
      agent.stop();
    },
    again: (signal) => log('warn', `${signal} again: exiting now`, {}),
    exitCode: 128 + 15,
    listen: !stop,
  });
  void stop?.then(() => signals.ask('stop'));
  return signals.release;
}
