// Where the state is, from the flags, the environment and the project file (options.ts asks), or as a command names
// it (state migrate FROM). A database URL's password is registered as a secret before anything can print it.
import { join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { Environment } from '../project/project.js';
import type { StateLocation } from '../state/backend.js';
import {
  fillEnv,
  isPostgresUrl,
  loosePasswords,
  mistypedUrl,
  parsePgUrl,
  pgSecrets,
  secretsInUrl,
} from '../state/postgres-url.js';
import type { Io } from '../types.js';
import { warnSecretsInArgv } from './argv-secrets.js';

export const defaultState = (dir: string, envName: string): StateLocation => ({
  kind: 'file',
  path: join(dir, '.tapedeck', `${envName}.state.json`),
});

/**
 * Where the state is: --state (a file or a postgres:// URL), else TAPEDECK_STATE_URL, else the environment's
 * `state:` (a file relative to DIR, or a URL whose `${env.NAME}` are filled in), else DIR/.tapedeck/<env>.state.json.
 * Every password met on the way is registered as a secret before anything can print it.
 */
/** A database URL's location, its secrets registered before anything can print them. */
function database(raw: string, from: string, io: Io): StateLocation {
  const pg = parsePgUrl(raw, from, io.env);
  for (const secret of pgSecrets(raw, pg)) io.secret?.(secret);
  return { kind: 'postgres', pg };
}

/** Something shaped like a database URL is never a file: a typo would plan against an empty state. */
function notMistyped(raw: string, from: string, io: Io): void {
  for (const secret of loosePasswords(raw)) io.secret?.(secret);
  const problem = mistypedUrl(raw);
  if (problem) throw new UserError(`${from}: ${problem}`);
}

/**
 * A state named by `from` (a flag, an argument, or TAPEDECK_STATE_URL for the agent's shared database): a
 * postgres:// URL, else a file. A password written in a URL on the command line (`onCommandLine`) is warned about.
 */
export function namedState(raw: string, from: string, io: Io, onCommandLine = true): StateLocation {
  if (isPostgresUrl(raw)) {
    const loc = database(raw, from, io);
    const inUrl = onCommandLine ? secretsInUrl(raw) : [];
    const where = `a password in ${from} (give it in PGPASSWORD or ~/.pgpass, or the whole URL in TAPEDECK_STATE_URL)`;
    // The whole URL is what the command line holds, however its password is encoded.
    warnSecretsInArgv(inUrl.length ? [where] : [], [raw], io, `tapedeck ${process.argv[2] ?? ''}`.trim());
    return loc;
  }
  notMistyped(raw, from, io);
  return { kind: 'file', path: resolve(io.cwd, raw) };
}

export function stateLocation(
  f: { state?: string },
  io: Io,
  dir: string,
  envName: string,
  env: Environment | undefined,
): StateLocation {
  if (f.state) return namedState(f.state, '--state', io);
  const url = io.env.TAPEDECK_STATE_URL;
  if (url) {
    notMistyped(url, 'TAPEDECK_STATE_URL', io);
    if (!isPostgresUrl(url))
      throw new UserError(
        'TAPEDECK_STATE_URL must be a PostgreSQL URL (postgres://user@host:5432/database?schema=tapedeck)',
      );
    return database(url, 'TAPEDECK_STATE_URL', io);
  }
  if (!env?.state) return defaultState(dir, envName);
  const from = `tapedeck.yaml: environments.${envName}.state`;
  if (!isPostgresUrl(env.state) && !env.state.startsWith('${env.')) {
    notMistyped(env.state, from, io);
    return { kind: 'file', path: resolve(dir, env.state) };
  }
  // The password filled in is registered by database() below; a host or user name filled in is no secret.
  const { value, problem } = fillEnv(env.state, io.env);
  if (problem) throw new UserError(`${from}: ${problem}`);
  notMistyped(value!, from, io);
  if (!isPostgresUrl(value!)) throw new UserError(`${from}: \${env.…} must give a PostgreSQL URL (postgres://…)`);
  return database(value!, from, io);
}
