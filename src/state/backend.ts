// Where a state lives: a file (the default, for one machine) or a PostgreSQL database (shared by every runner). The
// engine sees a State; only this interface knows which (open.ts opens one).
import { hostname, userInfo } from 'node:os';
import { tapedeckVersion } from '../version.js';
import type { PgLocation } from './postgres-url.js';
import type { StateData } from './data.js';
import type { Owned } from './data.js';
import type { Allowance, WindowOverride } from '../types.js';

export type StateLocation = { kind: 'file'; path: string } | { kind: 'postgres'; pg: PgLocation };

/** Where a state stands, for a compare-and-set: what was read (or last written), and the stored row's version. */
export interface StateRefs {
  lineage: string;
  serial: number;
}

/** What a write records beside the state (the database's history; a file keeps none). */
export interface WriteInfo {
  /** the command that wrote it: apply, export, state mv, state forget, state push */
  command: string;
  /** the configuration hash of the plan an apply ran */
  configurationHash?: string;
  /** the guardrail denials an apply let through (--allow RULE=REASON) */
  allowances?: Allowance[];
  /** the change windows an apply overrode (--override-window NAME=REASON) */
  overrides?: WindowOverride[];
}

/** Who writes, recorded with every version in the history and with the lock. */
export interface Writer {
  actor: string;
  host: string;
  pid: number;
  tapedeckVersion: string;
}

export interface HistoryEntry {
  serial: number;
  lineage: string;
  /** when this version was last written (a run writes its version several times: after each create) */
  written_at: string;
  actor: string;
  host: string;
  tapedeck_version: string;
  configuration_hash: string | null;
  command: string;
  /** how many times the run wrote this version */
  writes: number;
  /** the guardrail denials the apply let through, with their reasons (null: none) */
  allowances: Allowance[] | null;
  /** the change windows the apply overrode, with their reasons (null: none) */
  overrides?: WindowOverride[] | null;
}

export interface StateBackend {
  /** the state as messages name it: the file, or the database URL (password masked) and the environment */
  readonly name: string;
  /** the stored document as a message about its content names it: `state file FILE`, `the state URL (…)` */
  readonly label: string;
  /** the stored document's text (undefined: nothing stored yet) and its version, the token of the next write */
  read(): Promise<{ text?: string; version: number }>;
  /**
   * Writes the state `data` (stored in address order: document.ts) only if the stored state is still at `version`
   * (compare-and-set); returns the new version. A state written by anyone else since is refused (UserError) and
   * nothing is written. Synchronous for a file.
   */
  write(data: StateData, refs: StateRefs, version: number, info: WriteInfo): number | Promise<number>;
  /** Takes the lock on this state for the run, waiting up to `timeoutMs`; a holder is named when it does not come. */
  lock(timeoutMs: number): Promise<void>;
  /** Why the lock taken is no longer held, as soon as that is known without asking (a database connection ended). */
  lockLost(): string | undefined;
  /**
   * Returns once a write may be sent: the lock taken is still held, confirmed within the bound (lease.ts; a round
   * trip for a database when the last confirmation is older than a third of it). Throws a UserError (E_LOCKED)
   * saying why not; from then on it always does.
   */
  checkLock(): Promise<void>;
  /** `listener` is told, once, the moment the lock is known lost (a database's lease); a file's lock never is. */
  onLockLost(listener: (why: string) => void): void;
  /** The versions written, newest first. */
  history(limit: number): Promise<HistoryEntry[]>;
  /** One version's document, from the history; undefined when there is none with that serial. */
  version(serial: number): Promise<string | undefined>;
  /** Who else manages these ids, where the backend records it (a database's owners table; a file keeps none). */
  ownersElsewhere?(ids: Array<{ kind: string; id: string }>): Promise<Owned[]>;
  /** Between runs of a long-lived holder (the agent): the connection for reads and writes is closed, the lock's kept;
   *  the next read or write opens it again. */
  rest?(): Promise<void>;
  /** Releases the lock (if held) and the connection. */
  close(): Promise<void>;
}

/** The CI system's user where there is one (GitHub, GitLab), else the OS user; TAPEDECK_ACTOR overrides both. */
export function actorOf(env: NodeJS.ProcessEnv): string {
  const named = env.TAPEDECK_ACTOR || env.GITHUB_ACTOR || env.GITLAB_USER_LOGIN;
  if (named) return named;
  try {
    return userInfo().username;
  } catch {
    return env.USER || env.USERNAME || 'unknown';
  }
}

export const writerOf = (env: NodeJS.ProcessEnv): Writer => ({
  actor: actorOf(env),
  host: hostname(),
  pid: process.pid,
  tapedeckVersion: tapedeckVersion(),
});

export interface BackendContext {
  /** the configuration (tapedeck.yaml's name, or its default): a database keys its rows by it and the environment */
  configuration: string;
  /** the environment: a database holds one state per configuration and environment */
  environment: string;
  writer: Writer;
  /** how long connecting may take */
  timeoutMs: number;
  /** a write is sent only this long, at most, after a confirmation of the lock (lease.ts; default LOCK_BOUND_MS) */
  lockBoundMs?: number;
}
