// A real git repository for the agent's tests, made with the system's git: a bare repository (what the agent
// pulls) and a working clone to commit and push from.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { tempDir } from './tmp.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  }).trim();

export interface TestRepo {
  /** the bare repository's path (what --repo is given) */
  bare: string;
  /** writes `files` (text, or documents as YAML; null removes the file) and `links` (symbolic links: path ->
   *  target as written in the link), commits and pushes; the new commit */
  push(
    files: Record<string, string | object | object[] | null>,
    message?: string,
    links?: Record<string, string>,
  ): string;
}

export function testRepo(branch = 'main'): TestRepo {
  const root = tempDir('tapedeck-git-');
  const bare = join(root, 'origin.git');
  const work = join(root, 'work');
  git(root, 'init', '--quiet', '--bare', `--initial-branch=${branch}`, bare);
  git(root, 'clone', '--quiet', bare, work);
  git(work, 'checkout', '--quiet', '-B', branch);
  return {
    bare,
    push(files, message = 'change', links = {}) {
      for (const [path, content] of Object.entries(files)) {
        const full = join(work, path);
        if (content === null) {
          rmSync(full, { force: true });
          continue;
        }
        mkdirSync(dirname(full), { recursive: true });
        const text =
          typeof content === 'string'
            ? content
            : Array.isArray(content)
              ? content.map((d) => stringify(d)).join('---\n')
              : stringify(content);
        writeFileSync(full, text);
      }
      for (const [path, target] of Object.entries(links)) {
        const full = join(work, path);
        rmSync(full, { force: true, recursive: true });
        mkdirSync(dirname(full), { recursive: true });
        symlinkSync(target, full);
      }
      git(work, 'add', '--all');
      git(work, 'commit', '--quiet', '--allow-empty', '-m', message);
      git(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
      return git(work, 'rev-parse', 'HEAD');
    },
  };
}
