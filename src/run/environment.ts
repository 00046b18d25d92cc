// The environment a run is for (--env, TAPEDECK_ENV, the project file's environments), and the collector of the
// option rules' problems, reported together (options.ts, agent/settings.ts).
import { TapedeckError, UserError } from '../errors.js';
import type { Environment, Project } from '../project/project.js';
import type { Io } from '../types.js';

/** --env, else TAPEDECK_ENV; an empty variable (a CI variable left unset) is none, as an empty TAPEDECK_BASE_URL is. */
export const chosenEnvironment = (f: { env?: string }, io: Io): string | undefined =>
  f.env ?? (io.env.TAPEDECK_ENV || undefined);

/**
 * The environment the run is for. With environments in the project file it must be one of them: without --env
 * the name is `default`, and a project that does not define it would be run without its variables, base URL and
 * state file (a plan would then create everything again), so that is refused too, naming the choices.
 */
export function environment(
  project: Project | undefined,
  file: string,
  f: { env?: string },
  io: Io,
): { envName: string; env?: Environment } {
  const chosen = chosenEnvironment(f, io);
  const envName = chosen ?? 'default';
  if (!/^[A-Za-z0-9_-]+$/.test(envName))
    throw new UserError(`environment name ${JSON.stringify(envName)} may only hold letters, digits, - and _`);
  const envs = project?.environments ?? {};
  const known = Object.keys(envs);
  // Without environments in a project file, a name only chooses the state file.
  if (!known.length || Object.hasOwn(envs, envName)) return { envName, env: envs[envName] };
  if (chosen === undefined)
    throw new UserError(
      `an environment is needed: ${file} defines ${known.join(', ')}; choose one with --env NAME (or TAPEDECK_ENV)`,
    );
  throw new UserError(`unknown environment ${JSON.stringify(envName)} (the project file defines: ${known.join(', ')})`);
}

/** Runs rules without stopping at the first bad one: each UserError's line is kept, to report all together. */
export function collectProblems(): { problems: TapedeckError[]; check: <T>(rule: () => T) => T | undefined } {
  const problems: TapedeckError[] = [];
  const check = <T>(rule: () => T): T | undefined => {
    try {
      return rule();
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      problems.push(e);
      return undefined;
    }
  };
  return { problems, check };
}
