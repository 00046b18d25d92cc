// Options travel as one typed object built here from flags, environment variables and the project file;
// nothing else reads flags or the environment. Precedence: flag > environment variable > project file > default.
import { FORMATS, type Format } from '../report/formats.js';
import { readBounded } from '../util/files.js';
import { isAbsolute, join, resolve } from 'node:path';
import { Reported, UserError } from '../errors.js';
import { withOverrides, type Registry } from '../kinds/registry.js';
import { MAX_FILE_BYTES, parseFile } from '../load/load.js';
import { loadProject, type Project } from '../project/project.js';
import { isObject } from '../schema/values.js';
import { formatIssue, reportIssues } from '../report/text.js';
import type { Io } from './io.js';
import type { Issue } from '../types.js';

export interface CommonFlags {
  baseUrl?: string;
  tokenFile?: string;
  env?: string;
  state?: string;
  concurrency?: string;
  timeout?: string;
  retries?: string;
  retryDeadline?: string;
  deadline?: string;
  insecureHttp?: boolean;
  debug?: boolean;
  json?: boolean;
  format?: string;
  quiet?: boolean;
  var?: string[];
  varFile?: string[];
  recreateMissing?: boolean;
}

export interface RunOptions {
  /** plan a create for a resource the state knows but the platform does not (else that is an error) */
  recreateMissing: boolean;
  dir: string;
  envName: string;
  baseUrl?: string;
  statePath: string;
  concurrency: number;
  timeoutMs: number;
  maxAttempts: number;
  /** no retry starts after this long since the first attempt */
  deadlineMs: number;
  /** the whole run's deadline (epoch ms): no request starts after it */
  runDeadlineAt: number;
  insecureHttp: boolean;
  debug: boolean;
  json: boolean;
  /** stdout: text for people, markdown for pull-request comments, json for scripts (--json) */
  format: Format;
  quiet: boolean;
  vars: Record<string, unknown>;
  registry: Registry;
  project?: Project;
  /** read lazily: validate needs no token */
  token: () => string;
}

export function positiveInt(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new UserError(`${name} must be a whole number of at least ${min}, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function parseVars(list: string[] = []): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq < 1) throw new UserError(`--var takes NAME=VALUE, not ${JSON.stringify(item)}`);
    vars[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return vars;
}

/** A token file is a few hundred bytes; reading stops past this, so `--token-file /dev/zero` cannot hang a run. */
export const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/** A file named by a flag, read with a bound; `what` names it in messages, `is` says what it should have been. */
function readFlagFile(file: string, cwd: string, max: number, what: string, is: string): string {
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(resolve(cwd, file), max);
  } catch (e) {
    throw new UserError(`cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!bytes) throw new UserError(`${what} is over ${max >= 1 << 20 ? `${max} bytes` : `${max / 1024} KiB`}: that is not ${is}`);
  return bytes.toString('utf8');
}

/** A variables file, read by the same YAML path as the documents (depth, alias and directive rules included). */
function readVarFile(path: string, cwd: string): Record<string, unknown> {
  const text = readFlagFile(path, cwd, MAX_FILE_BYTES, `--var-file ${path}`, 'a variables file');
  const issues: Issue[] = [];
  const docs = parseFile(text, path, issues);
  const problem = issues.find((i) => i.severity === 'error');
  if (problem) throw new UserError(`--var-file ${formatIssue(problem)}`);
  if (docs.length !== 1 || !isObject(docs[0].value)) throw new UserError(`--var-file ${path}: must be one mapping of variable names to values`);
  return docs[0].value;
}

/**
 * The token, refused at once (naming where it came from, never its value) when a header cannot carry it: a line
 * break or another control character would otherwise fail every request, each retried, or split the header.
 */
function readToken(tokenFile: string | undefined, io: Io): string {
  const source = tokenFile ? `token file ${tokenFile}` : 'TAPEDECK_TOKEN';
  const t = (tokenFile ? readFlagFile(tokenFile, io.cwd, MAX_TOKEN_FILE_BYTES, `token file ${tokenFile}`, 'a token') : io.env.TAPEDECK_TOKEN ?? '').trim();
  io.secret?.(t);
  if (!t) throw new UserError(tokenFile ? `token file ${tokenFile} is empty` : 'no API token: set TAPEDECK_TOKEN or pass --token-file FILE');
  if (/[^\x21-\x7e]/.test(t)) {
    const what = /[\r\n]/.test(t) ? 'a line break' : /[\x00-\x1f\x7f]/.test(t) ? 'a control character' : /\s/.test(t) ? 'a space' : 'a character outside ASCII';
    throw new UserError(`the token from ${source} holds ${what}, which an HTTP header cannot carry; nothing was sent`);
  }
  return t;
}

function outputFormat(f: CommonFlags): RunOptions['format'] {
  const format = f.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) throw new UserError(`--format must be ${FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  if (f.json && f.format && format !== 'json') throw new UserError('--json and --format markdown both choose the output: pass one');
  return f.json ? 'json' : (format as Format);
}

export function buildOptions(dirArg: string | undefined, f: CommonFlags, io: Io): RunOptions {
  const dir = resolve(io.cwd, dirArg ?? '.');
  // Masked from the start, even by commands that never send it: a document or a message might echo it.
  io.secret?.(io.env.TAPEDECK_TOKEN?.trim() ?? '');
  const { project, issues } = loadProject(dir, io.cwd);
  if (issues.length) {
    reportIssues(issues, (t) => io.err(t));
    throw new Reported();
  }
  const envName = f.env ?? io.env.TAPEDECK_ENV ?? 'default';
  if (!/^[A-Za-z0-9_-]+$/.test(envName)) throw new UserError(`environment name ${JSON.stringify(envName)} may only hold letters, digits, - and _`);
  const envs = project?.environments ?? {};
  const env = envs[envName];
  // Without environments in a project file, a name only chooses the state file; with them, a name they do not
  // define is a typo worth stopping for.
  const known = Object.keys(envs);
  if (!env && envName !== 'default' && known.length) {
    throw new UserError(`unknown environment ${JSON.stringify(envName)} (the project file defines: ${known.join(', ')})`);
  }
  const { registry, problems } = withOverrides(project?.endpoints);
  if (problems.length) throw new UserError(`tapedeck.yaml: endpoints: ${problems.join('; ')}`);
  const stateFlag = f.state ? (isAbsolute(f.state) ? f.state : resolve(io.cwd, f.state)) : undefined;
  const defaults = project?.defaults ?? {};
  // Variables: the environment's vars, overridden by --var, overridden by --var-file (later sources win).
  const vars = { ...(env?.vars ?? {}), ...parseVars(f.var) };
  for (const file of f.varFile ?? []) Object.assign(vars, readVarFile(file, io.cwd));
  return {
    recreateMissing: !!f.recreateMissing,
    dir,
    envName,
    baseUrl: f.baseUrl ?? io.env.TAPEDECK_BASE_URL ?? env?.base_url,
    statePath: stateFlag ?? (env?.state ? resolve(dir, env.state) : join(dir, '.tapedeck', `${envName}.state.json`)),
    concurrency: positiveInt('--concurrency', f.concurrency, defaults.concurrency ?? 8),
    timeoutMs: positiveInt('--timeout', f.timeout, defaults.timeout ?? 30) * 1000,
    maxAttempts: positiveInt('--retries', f.retries, defaults.retries ?? 4, 0) + 1,
    deadlineMs: positiveInt('--retry-deadline', f.retryDeadline, defaults.retry_deadline ?? 120) * 1000,
    runDeadlineAt: Date.now() + positiveInt('--deadline', f.deadline, 3600) * 1000,
    insecureHttp: !!f.insecureHttp,
    debug: !!f.debug,
    json: !!f.json,
    format: outputFormat(f),
    quiet: !!f.quiet,
    vars,
    registry,
    project,
    token: () => readToken(f.tokenFile, io),
  };
}
