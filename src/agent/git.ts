// The agent's copy of the repository, through the system's `git`: cloned once into a directory of its own, then
// fetched and checked out commit by commit. Never a prompt (no terminal to answer it), never a hook, a time limit on
// every call, and credentials never in git's arguments, its config or a message (git-auth.ts).
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { RepoAccess } from './git-auth.js';

/** A clone or fetch that takes longer than this is stopped and reported; the next run tries again. */
const GIT_TIMEOUT_MS = 120_000;

/** The repository as it may be shown: a URL without its user name or password; a local path as given. */
export function shownRepo(repo: string): string {
  try {
    const url = new URL(repo);
    if (!url.username && !url.password) return repo;
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return repo;
  }
}

/** What one configuration's runs read commits through: the fetched tip, and its own directory at a commit. */
export interface CommitSource {
  /** the working tree the configuration's directory is found in */
  readonly dir: string;
  /** the branch's tip as the remote has it now */
  fetch(): Promise<string>;
  /** the working tree becomes exactly that commit */
  checkout(commit: string): Promise<void>;
}

export class Checkout implements CommitSource {
  constructor(
    private readonly repo: string,
    private readonly branch: string,
    readonly dir: string,
    private readonly mask: (t: string) => string,
    private readonly access: RepoAccess,
  ) {}

  private git(args: string[], cwd?: string): Promise<string> {
    return new Promise((done, fail) => {
      execFile(
        'git',
        args,
        {
          cwd: cwd ?? this.dir,
          timeout: GIT_TIMEOUT_MS,
          maxBuffer: 64 << 20,
          env: {
            ...process.env,
            GIT_TERMINAL_PROMPT: '0',
            GIT_ASKPASS: 'echo',
            SSH_ASKPASS: 'echo',
            GIT_CONFIG_NOSYSTEM: '1',
            LC_ALL: 'C',
            ...this.access.env(),
          },
        },
        (error, stdout, stderr) => {
          if (!error) return done(stdout.trim());
          const why = (error as { killed?: boolean }).killed
            ? `no answer within ${GIT_TIMEOUT_MS / 1000} s`
            : (error as NodeJS.ErrnoException).code === 'ENOENT'
              ? 'the git command is not installed'
              : stderr
                  .trim()
                  .split('\n')
                  .filter((l) => !/^hint:/.test(l))
                  .slice(-2)
                  .join(' ') || error.message;
          fail(
            new UserError(
              `git ${args[0]} of ${shownRepo(this.repo)} (branch ${this.branch}) failed: ${this.mask(why)}`,
              { code: 'E_GIT' },
            ),
          );
        },
      );
    });
  }

  /** The URL as git is given it: a local path made absolute, so a later fetch from the clone finds it. */
  private source(cwd: string): string {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(this.repo) || /^[^/]+@[^/:]+:/.test(this.repo)) return this.access.url;
    const local = resolve(cwd, this.repo);
    if (!existsSync(local) || !statSync(local).isDirectory())
      throw new UserError(`--repo ${this.repo}: no such directory (give a URL, or the path of a git repository)`);
    return local;
  }

  /**
   * The branch must be one: a tag of that name is refused in one line (a tag does not move, so following it would
   * never see a new commit; the agent follows branches only), and a name that is neither is a git error.
   */
  private async checkBranch(source: string, cwd: string): Promise<void> {
    const refs = (await this.git(['ls-remote', '--heads', '--tags', '--', source, this.branch], cwd))
      .split('\n')
      .map((l) => l.split('\t')[1]);
    if (refs.includes(`refs/heads/${this.branch}`)) return;
    const repo = shownRepo(this.repo);
    if (refs.includes(`refs/tags/${this.branch}`))
      throw new UserError(
        `--branch ${this.branch} is a tag of ${repo}, not a branch: the agent follows a branch (each new commit on it); to hold a release, give it a branch of its own`,
      );
    throw new UserError(`--branch ${this.branch}: ${repo} has no such branch`, { code: 'E_GIT' });
  }

  /** Clones the branch (no checkout yet); the commit at its tip. */
  async clone(cwd: string): Promise<string> {
    await this.checkBranch(this.source(cwd), cwd);
    await this.git(
      [
        'clone',
        '--quiet',
        '--no-checkout',
        '--single-branch',
        '--branch',
        this.branch,
        '--',
        this.source(cwd),
        this.dir,
      ],
      cwd,
    );
    return this.git(['rev-parse', '--verify', 'HEAD^{commit}']);
  }

  /** The branch's tip as the remote has it now. */
  async fetch(): Promise<string> {
    await this.git([
      'fetch',
      '--quiet',
      '--no-tags',
      'origin',
      `+refs/heads/${this.branch}:refs/remotes/origin/${this.branch}`,
    ]);
    return this.git(['rev-parse', '--verify', `refs/remotes/origin/${this.branch}^{commit}`]);
  }

  /** The working tree becomes exactly that commit: nothing left over from another (untracked files removed). */
  async checkout(commit: string): Promise<void> {
    await this.git(['checkout', '--quiet', '--force', '--detach', commit]);
    await this.git(['clean', '--quiet', '-ffdx']);
  }

  /** Every file of a commit, by its path in the repository. */
  async files(commit: string): Promise<string[]> {
    return (await this.git(['ls-tree', '-r', '-z', '--name-only', commit])).split('\0').filter(Boolean);
  }

  /** The files that differ between two commits (a rename: both paths). */
  async changed(from: string, to: string): Promise<string[]> {
    return (await this.git(['diff', '--name-only', '-z', '--no-renames', from, to])).split('\0').filter(Boolean);
  }

  /**
   * A working tree of its own for one configuration, on this clone's objects (no second clone), holding only that
   * directory (a sparse checkout): configurations move from commit to commit on their own, one rejected commit
   * holding back no other.
   */
  async worktree(dir: string, path: string): Promise<CommitSource> {
    await this.git(['worktree', 'add', '--quiet', '--detach', '--no-checkout', dir, 'HEAD']);
    if (path !== '.')
      await this.git(['sparse-checkout', 'set', '--no-cone', `/${path.replace(/[*?[\\]/g, '\\$&')}/`], dir);
    return {
      dir,
      fetch: () => this.fetch(),
      checkout: async (commit) => {
        await this.git(['checkout', '--quiet', '--force', '--detach', commit], dir);
        await this.git(['clean', '--quiet', '-ffdx'], dir);
      },
    };
  }

  /** A configuration's working tree removed (the configuration gone from the branch). */
  async removeWorktree(dir: string): Promise<void> {
    await this.git(['worktree', 'remove', '--force', dir]).catch(() => {});
  }
}
