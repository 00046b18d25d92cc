// Options travel as one typed object built here from flags and environment; nothing else reads flags or env.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { Io } from './io.js';

export interface CommonFlags {
  baseUrl?: string;
  tokenFile?: string;
  env?: string;
  state?: string;
  concurrency?: string;
  timeout?: string;
  retries?: string;
  insecureHttp?: boolean;
  debug?: boolean;
  json?: boolean;
  var?: string[];
}

export interface RunOptions {
  dir: string;
  envName: string;
  baseUrl?: string;
  statePath: string;
  concurrency: number;
  timeoutMs: number;
  maxAttempts: number;
  insecureHttp: boolean;
  debug: boolean;
  json: boolean;
  vars: Record<string, unknown>;
  /** read lazily: validate needs no token */
  token: () => string;
}

export function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UserError(`${name} must be a positive whole number, not ${JSON.stringify(raw)}`);
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

export function buildOptions(dirArg: string | undefined, f: CommonFlags, io: Io): RunOptions {
  const dir = resolve(io.cwd, dirArg ?? '.');
  const envName = f.env ?? io.env.TAPEDECK_ENV ?? 'default';
  if (!/^[A-Za-z0-9_-]+$/.test(envName)) throw new UserError(`environment name ${JSON.stringify(envName)} may only hold letters, digits, - and _`);
  const statePath = f.state ? (isAbsolute(f.state) ? f.state : resolve(io.cwd, f.state)) : join(dir, '.tapedeck', `${envName}.state.json`);
  return {
    dir,
    envName,
    baseUrl: f.baseUrl ?? io.env.TAPEDECK_BASE_URL,
    statePath,
    concurrency: positiveInt('--concurrency', f.concurrency, 8),
    timeoutMs: positiveInt('--timeout', f.timeout, 30) * 1000,
    maxAttempts: positiveInt('--retries', f.retries, 4) + 1,
    insecureHttp: !!f.insecureHttp,
    debug: !!f.debug,
    json: !!f.json,
    vars: parseVars(f.var),
    token: () => {
      if (f.tokenFile) {
        try {
          const t = readFileSync(resolve(io.cwd, f.tokenFile), 'utf8').trim();
          if (!t) throw new UserError(`token file ${f.tokenFile} is empty`);
          return t;
        } catch (e) {
          if (e instanceof UserError) throw e;
          throw new UserError(`cannot read token file ${f.tokenFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
        }
      }
      const t = io.env.TAPEDECK_TOKEN?.trim();
      if (!t) throw new UserError('no API token: set TAPEDECK_TOKEN or pass --token-file FILE');
      return t;
    },
  };
}
