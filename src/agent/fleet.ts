// An agent following several configurations of one repository (--path given more than once, or a glob): one clone
// serves them all, each configuration has its own working tree (a sparse one of its directory, so each moves from
// commit to commit on its own: one rejected holds back no other), its own loop, lock, state row, plan, apply and
// errors (agent.ts), and at most --parallel of them run at once. A new tip reconciles at once only the
// configurations whose files it changed (a diff of the two commits); the others keep their own intervals. On a
// shared PostgreSQL state the replicas share the configurations (replicas.ts, shares.ts). One literal --path is the
// agent as it always was: that configuration alone, in the clone itself.
import { join } from 'node:path';
import { errorCode, errorLine } from '../errors.js';
import type { Agent } from './agent.js';
import { configurationsAt, touched, type PathPattern } from './configurations.js';
import type { Checkout, CommitSource } from './git.js';
import type { Log } from './log.js';
import type { Membership } from './membership.js';

/** A configuration followed: its loop, or why it could not be made from its commit (refused alone). */
interface Entry {
  source: CommitSource;
  agent?: Agent;
  loop?: Promise<void>;
  refused?: { at: string; commit: string; code: string; message: string };
}

export interface FleetParts {
  patterns: PathPattern[];
  checkout: Checkout;
  /** where the configurations' working trees go */
  work: string;
  log: Log;
  /** a configuration's loop, made from its working tree at its first commit (throws: it is refused) */
  make(path: string, source: CommitSource): Agent;
  /** told when a configuration is refused or gone, for its metrics and notifications */
  refused(path: string, refusal: NonNullable<Entry['refused']>): void;
  gone(path: string): void;
  /** the replicas sharing the configurations (a PostgreSQL state), if any */
  membership?: Membership;
  /** a fetch shared by the runs asking within this long of another */
  fetchEveryMs: number;
}

export class Fleet {
  readonly entries = new Map<string, Entry>();
  private tip: string | undefined;
  private fetching: Promise<string> | undefined;
  private fetchedAt = 0;
  private stopping = false;
  private changing: Promise<void> = Promise.resolve();
  private trees = 0;
  private stopped!: () => void;
  private readonly stopSignal = new Promise<void>((r) => {
    this.stopped = r;
  });

  constructor(private readonly p: FleetParts) {}

  /** The configurations at the first commit; an error when none is found (a typo in --path). */
  async start(head: string): Promise<void> {
    this.tip = head;
    this.fetchedAt = Date.now();
    await this.follow(head, await this.found(head), []);
  }

  private async found(commit: string): Promise<string[]> {
    const { dirs, refused } = configurationsAt(this.p.patterns, await this.p.checkout.files(commit));
    for (const r of refused) this.p.log('warn', 'configuration not followed', { configuration: r.dir, reason: r.why });
    return dirs;
  }

  /** The configurations at `commit`: new ones made, gone ones stopped, `changed` ones (made again if refused). */
  private async follow(commit: string, dirs: string[], changed: string[]): Promise<void> {
    for (const [path, entry] of this.entries)
      if (!dirs.includes(path)) {
        this.entries.delete(path);
        entry.agent?.stop();
        await entry.loop;
        await this.p.checkout.removeWorktree(entry.source.dir);
        this.p.gone(path);
        this.p.log('warn', 'configuration gone from the branch: no longer reconciled (its state and resources stay)', {
          configuration: path,
          commit: commit.slice(0, 12),
        });
      }
    for (const path of dirs) {
      const entry = this.entries.get(path);
      if (entry && !(entry.refused && changed.includes(path))) continue;
      const source = entry?.source ?? (await this.tree(path));
      // Made from its files at this commit: its settings, its platform and its state come from them.
      await source.checkout(commit);
      this.entries.set(path, this.made(path, source, commit));
    }
    this.p.membership?.configurations([...this.entries.keys()]);
  }

  /** The configuration's own working tree; its runs fetch through the fleet's one shared fetch. */
  private async tree(path: string): Promise<CommitSource> {
    const own = await this.p.checkout.worktree(join(this.p.work, `c${this.trees++}`), path);
    return { dir: own.dir, checkout: (c) => own.checkout(c), fetch: () => this.tipNow() };
  }

  private made(path: string, source: CommitSource, commit: string): Entry {
    try {
      return { source, agent: this.p.make(path, source) };
    } catch (e) {
      const refused = { at: new Date().toISOString(), commit, code: errorCode(e), message: errorLine(e) };
      this.p.log('warn', 'configuration refused: it is not reconciled until a commit changes it', {
        configuration: path,
        commit: commit.slice(0, 12),
        error: refused.message,
        error_code: refused.code,
      });
      this.p.refused(path, refused);
      return { source, refused };
    }
  }

  /** The branch's tip, fetched once for the runs that ask together; a new tip sets the changed ones going. */
  tipNow(force = false): Promise<string> {
    // A push's fetch never rides on one that started before the push: it starts again after it.
    if (this.fetching)
      return force ? this.fetching.catch(() => undefined).then(() => this.tipNow(true)) : this.fetching;
    if (!force && this.tip && Date.now() - this.fetchedAt < this.p.fetchEveryMs) return Promise.resolve(this.tip);
    this.fetching = (async () => {
      try {
        const head = await this.p.checkout.fetch();
        this.fetchedAt = Date.now();
        const from = this.tip;
        this.tip = head;
        if (from && from !== head) this.changing = this.changing.then(() => this.moved(from, head));
        await this.changing;
        return head;
      } finally {
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }

  /** A new tip: the configurations found again, and those whose files changed reconciled now. */
  private async moved(from: string, to: string): Promise<void> {
    if (this.stopping) return;
    const changed = await this.p.checkout.changed(from, to);
    const dirs = await this.found(to);
    const hit = touched(dirs, changed);
    await this.follow(to, dirs, hit);
    if (hit.length)
      this.p.log('info', 'new commit: reconciling the configurations it changed', {
        commit: to.slice(0, 12),
        configurations: hit,
      });
    for (const path of hit) {
      const entry = this.entries.get(path);
      entry?.agent?.trigger();
      if (entry?.agent && entry.loop === undefined && !this.stopping) entry.loop = entry.agent.loop();
    }
  }

  /** A verified push: fetch now; the configurations it changed run at once. */
  pushed(): void {
    void this.tipNow(true).catch((e) => this.p.log('warn', 'fetch after a push failed', { error: errorLine(e) }));
  }

  /** Wakes the configurations whose share this replica just took or gave up, or whose lock it waits for. */
  private wake(): void {
    for (const e of this.entries.values()) if (e.agent && this.p.membership?.moved(e.agent)) e.agent.trigger();
  }

  /** Runs every configuration's loop until stop(); each releases its lock before this returns. */
  async loop(): Promise<void> {
    const poll = this.p.membership?.run(() => this.wake());
    for (const e of this.entries.values()) if (e.agent) e.loop = e.agent.loop();
    await this.stopSignal;
    await poll;
    await this.changing;
    await Promise.all([...this.entries.values()].map((e) => e.loop));
    await this.p.membership?.leave();
  }

  stop(): void {
    this.stopping = true;
    this.stopped();
    this.p.membership?.stop();
    for (const e of this.entries.values()) e.agent?.stop();
  }

  get ready(): boolean {
    return [...this.entries.values()].every((e) => !e.agent || e.agent.ready);
  }

  /** Each configuration's part of /status, in path order. */
  configurations(): Record<string, unknown>[] {
    return [...this.entries.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, e]) => {
        const replica = this.p.membership?.owner(path) ?? null;
        if (e.agent) return { ...e.agent.status(), replica };
        const r = e.refused!;
        return {
          role: 'refused',
          path,
          replica,
          commit: null,
          rejected_commit: r.commit,
          sync: { status: 'rejected', commit: null, tip: this.tip ?? null },
          runs: 0,
          last_error: { at: r.at, code: r.code, message: r.message },
        };
      });
  }
}
