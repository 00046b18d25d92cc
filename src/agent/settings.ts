// The agent's own settings: its flags, over the `agent:` section of the configuration's tapedeck.yaml, over the
// defaults. Every rule runs and all problems are reported together, as buildOptions does for the run's options.
// What widens the agent's reach (writing, listening, sending, reading files on its machine) comes from the operator
// only: the repository's section can hold none of it (the project schema refuses it, located), and may only
// narrow (auto_apply: false, taken at each commit by reconcile.ts). --no-auto-apply wins over everything.
import { UserError } from '../errors.js';
import type { AgentSection } from '../project/project.js';
import { parseDuration as readDuration, wholeUnits } from '../util/duration.js';
import { collectProblems, positiveInt } from '../run/options.js';

export interface AgentFlags {
  repo?: string;
  branch?: string;
  /** the configurations' directories, or globs of them (configurations.ts); the operator's only */
  path?: string[];
  /** --parallel: configurations reconciled at once by this replica */
  parallel?: string;
  interval?: string;
  fullEvery?: string;
  autoApply?: boolean;
  /** --no-auto-apply: report only, whatever else says otherwise (its own flag, so the order of flags cannot undo it) */
  noAutoApply?: boolean;
  listen?: string;
  webhookSecretFile?: string;
  notify?: string[];
  /** notification URLs, one a line: kept out of argv, where every user of the machine can read them */
  notifyFile?: string;
  /** a token for --repo's https URL (git-auth.ts) */
  repoTokenFile?: string;
  logFormat?: string;
  /** the environment variables the documents may read (`${env.NAME}`): the operator's only; none when not given */
  documentEnv?: string[];
}

export interface AgentSettings {
  repo: string;
  branch: string;
  /** the configuration's directory inside the repository */
  path: string;
  /** configurations reconciled at once (several configurations only) */
  parallel: number;
  intervalMs: number;
  fullEvery: number;
  /** the operator's: whether the agent may write at all (a commit's agent.auto_apply: false can still stop it) */
  autoApply: boolean;
  listen: { host: string; port: number };
  webhookSecretFile?: string;
  notify: string[];
  logFormat: 'text' | 'json';
}

/** Short enough for tests, long enough that a typo (`5` for `5m`) cannot make the agent hammer the platform. */
const MIN_INTERVAL_MS = 100;

/** `5m`, `30s`, `200ms`, `1h`, `1h30m`: whole numbers and their units (util/duration.ts). */
export function parseDuration(name: string, raw: string): number {
  const ms = readDuration(raw) ?? NaN;
  if (!(ms >= MIN_INTERVAL_MS)) {
    const written = wholeUnits(raw);
    throw new UserError(
      `${name} must be a duration of at least ${MIN_INTERVAL_MS}ms such as 30s, 5m or 1h, not ${JSON.stringify(raw)}${written ? `: write ${written}` : ''}`,
    );
  }
  return ms;
}

/** `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (loopback); port 0 takes any free one (the log says which). */
export function parseListen(raw: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(raw);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new UserError(
      `--listen takes HOST:PORT (e.g. 127.0.0.1:9464, 0.0.0.0:9464 or [::1]:9464), not ${JSON.stringify(raw)}`,
    );
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** --notify-file's URLs: one a line, blank lines and `#` comments skipped; a bad one is located by its line, never
 *  repeated (it may hold a token). */
export function notifyFileUrls(file: string, text: string): string[] {
  const urls: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const url = line.trim();
    if (!url || url.startsWith('#')) return;
    try {
      urls.push(notifyUrl(url));
    } catch {
      throw new UserError(`${file}:${i + 1}: not an http(s) URL (the line is not repeated here: it may hold a token)`, {
        code: 'E_INPUT',
      });
    }
  });
  return urls;
}

function notifyUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol))
    throw new UserError('--notify takes an http(s) URL (the URL itself is not repeated here: it may hold a token)');
  return url.href;
}

/** `path`: the configuration's directory (with several, each has its own settings: its tapedeck.yaml's section). */
export function agentSettings(
  flags: AgentFlags,
  section: AgentSection = {},
  path = flags.path?.[0] ?? '.',
): AgentSettings {
  const { problems, check } = collectProblems();
  if (!flags.repo)
    problems.push(
      new UserError('--repo is needed: the URL of the repository to pull (https://, file:// or a local path)'),
    );
  const fromFile = (flag: string, key: keyof AgentSection) =>
    section[key] === undefined ? flag : `tapedeck.yaml agent.${key}`;
  const interval = flags.interval ?? section.interval ?? '5m';
  const intervalMs = check(() => parseDuration(fromFile('--interval', 'interval'), interval)) ?? 0;
  const fullEvery = check(() => positiveInt('--full-every', flags.fullEvery, section.full_every ?? 12)) ?? 1;
  const listen = check(() => parseListen(flags.listen ?? '127.0.0.1:9464'));
  const logFormat = flags.logFormat ?? section.log_format ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json')
    problems.push(new UserError(`--log-format must be text or json, not ${JSON.stringify(logFormat)}`));
  const notify = (flags.notify ?? []).map((u) => check(() => notifyUrl(u)) ?? '');
  const parallel = check(() => positiveInt('--parallel', flags.parallel, 4)) ?? 1;
  if (path.split(/[\\/]/).includes('..'))
    problems.push(new UserError(`--path is a directory inside the repository, not ${JSON.stringify(path)}`));
  if (problems.length === 1) throw problems[0];
  if (problems.length) throw new UserError(`${problems.length} problems: ${problems.map((p) => p.line()).join('; ')}`);
  return {
    repo: flags.repo!,
    branch: flags.branch ?? 'main',
    path,
    parallel,
    intervalMs,
    fullEvery,
    autoApply: !flags.noAutoApply && flags.autoApply === true && section.auto_apply !== false,
    listen: listen!,
    webhookSecretFile: flags.webhookSecretFile,
    notify,
    logFormat: logFormat as 'text' | 'json',
  };
}
