// What the agent takes from its operator that is secret or widens its reach, gathered before anything is printed:
// the repository's credential (git-auth.ts), the notification URLs (--notify, --notify-file), each registered for
// masking; a credential on the command line is warned about, and the process's command line (world-readable in
// /proc/<pid>/cmdline) is overwritten so it shows for no longer than the start.
import { resolve } from 'node:path';
import { repoAccess, type RepoAccess } from '../../agent/git-auth.js';
import { notifyFileUrls, type AgentFlags } from '../../agent/settings.js';
import { UserError } from '../../errors.js';
import { warnSecretsInArgv } from '../../run/argv-secrets.js';
import { MAX_TOKEN_FILE_BYTES } from '../../run/options.js';
import { readBounded } from '../../util/files.js';
import type { Io } from '../io.js';

export interface OperatorInputs {
  access: RepoAccess;
  /** --notify's URLs, then --notify-file's */
  notify: string[];
}

function notifyFile(file: string, io: Io): string[] {
  let text: string | undefined;
  try {
    text = readBounded(resolve(io.cwd, file), MAX_TOKEN_FILE_BYTES)?.toString('utf8');
  } catch (e) {
    throw new UserError(`cannot read --notify-file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, {
      code: 'E_INPUT',
    });
  }
  if (text === undefined) throw new UserError(`--notify-file ${file} is over ${MAX_TOKEN_FILE_BYTES} bytes`);
  return notifyFileUrls(file, text);
}

export function operatorInputs(flags: AgentFlags, io: Io): OperatorInputs {
  const fromFlags = flags.notify ?? [];
  for (const u of fromFlags) io.secret?.(u);
  const access = repoAccess(flags.repo ?? '', flags.repoTokenFile && resolve(io.cwd, flags.repoTokenFile), io.env);
  for (const s of access.secrets()) io.secret?.(s);
  const notify = [...fromFlags, ...(flags.notifyFile ? notifyFile(flags.notifyFile, io) : [])];
  for (const u of notify) io.secret?.(u);
  const inArgv = [
    access.inUrl ? "a credential in --repo's URL (give it with --repo-token-file FILE)" : '',
    fromFlags.length ? 'notification URLs in --notify (give them with --notify-file FILE)' : '',
  ].filter(Boolean);
  warnSecretsInArgv(inArgv, [...access.secrets(), ...fromFlags], io, 'tapedeck agent');
  return { access, notify };
}
