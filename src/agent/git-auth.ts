// Credentials for the agent's repository, kept out of every command line (/proc/<pid>/cmdline is readable by every
// user of the machine) and out of the checkout's .git/config: git is given the URL without them, and a credential
// helper configured through git's environment (GIT_CONFIG_COUNT/KEY/VALUE, scoped to the repository's origin) that
// answers from two environment variables of git's own process (readable by the same user only). The token comes
// from --repo-token-file (read again at each git call: a rotated token needs no restart) or, still accepted, from
// --repo's URL (the agent warns). SSH needs none of this: GIT_SSH_COMMAND and known-hosts files pass through.
import { UserError } from '../errors.js';
import { MAX_TOKEN_FILE_BYTES } from '../run/options.js';
import { readBounded } from '../util/files.js';

/** GitHub's user name for a token (GitLab and Gitea take any name with a token); a URL's own user name wins. */
const TOKEN_USER = 'x-access-token';

export interface RepoAccess {
  /** the URL git is given: no password, and for https:// no user name either */
  url: string;
  /** the credential held in --repo's URL, if there was one (to warn about) */
  inUrl: boolean;
  /** the environment that gives git the credential, made at each call; empty without one */
  env(): Record<string, string>;
  /** the values to mask in every output */
  secrets(): string[];
}

/** The helper git runs (`credential get` and, harmlessly, `store`/`erase`): it prints only what git's environment holds. */
const HELPER =
  '!f() { test "$1" = get || exit 0; echo "username=$TAPEDECK_GIT_USERNAME"; echo "password=$TAPEDECK_GIT_PASSWORD"; }; f';

function readToken(file: string): string {
  let text: string | undefined;
  try {
    text = readBounded(file, MAX_TOKEN_FILE_BYTES)?.toString('utf8').trim();
  } catch (e) {
    throw new UserError(`cannot read --repo-token-file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, {
      code: 'E_INPUT',
    });
  }
  if (!text)
    throw new UserError(`--repo-token-file ${file} is empty or over ${MAX_TOKEN_FILE_BYTES} bytes`, {
      code: 'E_INPUT',
    });
  return text;
}

/** The environment's next free GIT_CONFIG_* index, so the operator's own entries stay. */
function configEntries(env: NodeJS.ProcessEnv, entries: [string, string][]): Record<string, string> {
  const base = Number(env.GIT_CONFIG_COUNT ?? 0) || 0;
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(base + entries.length) };
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${base + i}`] = key;
    out[`GIT_CONFIG_VALUE_${base + i}`] = value;
  });
  return out;
}

export function repoAccess(repo: string, tokenFile: string | undefined, env: NodeJS.ProcessEnv): RepoAccess {
  let url: URL | undefined;
  try {
    url = new URL(repo);
  } catch {
    url = undefined;
  }
  const https = url && /^https?:$/.test(url.protocol);
  if (tokenFile && !https)
    throw new UserError(
      '--repo-token-file is for an https:// repository (for ssh, use GIT_SSH_COMMAND and a key file)',
    );
  if (!url || (!url.password && !(https && url.username) && !tokenFile))
    return { url: repo, inUrl: false, env: () => ({}), secrets: () => [] };
  const fromUrl = decodeURIComponent(url.password);
  const user = decodeURIComponent(url.username);
  if (!https) {
    // ssh://user:password@host: git cannot use the password anyway; it is dropped rather than written to disk.
    url.password = '';
    return { url: url.href, inUrl: fromUrl !== '', env: () => ({}), secrets: () => [fromUrl].filter(Boolean) };
  }
  url.username = '';
  url.password = '';
  // A user name alone (https://me@host/...) with no token: git is given it back, to ask as it would.
  if (!fromUrl && !tokenFile) return { url: repo, inUrl: false, env: () => ({}), secrets: () => [] };
  const token = () => (tokenFile ? readToken(tokenFile) : fromUrl);
  const origin = `${url.protocol}//${url.host}`;
  return {
    url: url.href,
    inUrl: fromUrl !== '',
    secrets: () => [token(), encodeURIComponent(token())],
    env: () => ({
      // The first entry empties the helper list (a helper of the user's own would answer first); the second is
      // ours, for this origin only.
      ...configEntries(env, [
        ['credential.helper', ''],
        [`credential.${origin}.helper`, HELPER],
      ]),
      TAPEDECK_GIT_USERNAME: user || TOKEN_USER,
      TAPEDECK_GIT_PASSWORD: token(),
    }),
  };
}
