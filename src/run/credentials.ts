// Where the run's token comes from. An environment of tapedeck.yaml may name its own source (token_env: a variable's
// name, or token_file: an absolute path; either one for both roles, or {plan, apply}), never the token itself; an
// environment that names none takes TAPEDECK_TOKEN, as before. --token-file overrides both, as every flag does.
// A token an environment names is sent only to that environment's base URL: a --base-url or TAPEDECK_BASE_URL
// pointing elsewhere is refused, so production's token cannot reach staging (or a typo's host).
import { UserError } from '../errors.js';
import type { Environment, Project, TokenRef } from '../project/project.js';
import type { Io } from '../types.js';

/** plan: every command that only reads the platform; apply: `apply`, and `agent --auto-apply`. */
export type TokenRole = 'plan' | 'apply';

export interface TokenSource {
  /** a file holding the token (absolute, or relative to the working directory for --token-file) */
  file?: string;
  /** an environment variable holding it */
  variable?: string;
  /** where it comes from, as a message names it (never its value) */
  shown: string;
}

const forRole = (ref: TokenRef | undefined, role: TokenRole): string | undefined =>
  typeof ref === 'string' ? ref : ref?.[role];

/** The token source of a run of `envName` in `role`. */
export function tokenSource(
  flagFile: string | undefined,
  envName: string,
  env: Environment | undefined,
  role: TokenRole,
  baseUrl: string | undefined,
): TokenSource {
  if (flagFile) return { file: flagFile, shown: `the token file ${flagFile}` };
  const variable = forRole(env?.token_env, role);
  const file = forRole(env?.token_file, role);
  if (!variable && !file) return { variable: 'TAPEDECK_TOKEN', shown: 'TAPEDECK_TOKEN' };
  const shown = `${variable ?? `the token file ${file}`} (environment ${envName}'s ${role} token, tapedeck.yaml)`;
  if (baseUrl !== undefined && env?.base_url !== undefined && !sameUrl(baseUrl, env.base_url))
    throw new UserError(
      `environment ${envName}'s ${role} token (${variable ?? file}) is sent only to its base_url ${env.base_url}, ` +
        `not to ${baseUrl} (--base-url or TAPEDECK_BASE_URL): for another platform pass --token-file`,
      { code: 'E_INPUT' },
    );
  return variable ? { variable, shown } : { file, shown };
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/** Every token variable the project names (all environments, both roles). */
export function namedTokenVariables(project: Project | undefined): string[] {
  const names = new Set<string>();
  for (const env of Object.values(project?.environments ?? {}))
    for (const role of ['plan', 'apply'] as const) {
      const v = forRole(env.token_env, role);
      if (v) names.add(v);
    }
  return [...names];
}

/**
 * The variables the project file names as credentials: the token variables (token_env) and those a `state:` URL
 * fills in (its password, or the whole URL). A document may not read them (`${env.NAME}`), or a push could copy a
 * token or a database password into a value sent to the platform.
 */
export function credentialVariables(project: Project | undefined): Set<string> {
  const names = new Set(namedTokenVariables(project));
  for (const env of Object.values(project?.environments ?? {}))
    for (const m of (typeof env.state === 'string' ? env.state : '').matchAll(/\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}/g))
      names.add(m[1]);
  return names;
}

/** The values of the project's token variables: masked from the start of any run. */
export function namedTokenValues(project: Project | undefined, io: Io): string[] {
  return namedTokenVariables(project)
    .map((v) => io.env[v]?.trim())
    .filter((value): value is string => !!value);
}
