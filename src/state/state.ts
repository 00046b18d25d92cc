// The state file: address -> id of every resource tapedeck manages, so created resources are found again.
// Written atomically (temp file, fsync, rename) with mode 0600; it never holds a secret.
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { UserError } from '../errors.js';
import type { StateRef } from '../types.js';
import { readBounded, writePrivateFile } from '../util/files.js';
import { checkState } from './shape.js';

export const STATE_FORMAT = 1;
/** Far above any real state (100,000 resources with their fields), and a bound for a path that never ends. */
const MAX_STATE_BYTES = 256 * 1024 * 1024;

export interface StateEntry {
  kind: string;
  /** the server id, for kinds addressed by id */
  id?: string;
  /** the managed fields as they were on the platform after the last apply: field path -> value (no secrets) */
  fields?: Record<string, unknown>;
  /** a create was sent at this time and its outcome is not known yet: look the resource up before creating again */
  pending_since?: string;
  /** ids that already matched the create before it was sent: never taken for the resource it made */
  existing?: string[];
}

export interface Platform {
  /** the origin of the base URL */
  origin: string;
  environment: string;
}

export interface StateData {
  format_version: number;
  /** which history this state belongs to: set when it is first written, never changed (Terraform's lineage) */
  lineage?: string;
  /** how many times it was written by a run; a saved plan applies only to the serial it was made against */
  serial?: number;
  /** the platform it belongs to, recorded by its first run: a run against another one is refused */
  platform?: Platform;
  resources: Record<string, StateEntry>;
}

export class State {
  /** the same entries as data.resources, for lookups: a plan asks for every document's entry several times */
  private readonly byAddress: Map<string, StateEntry>;
  /** this run has written the state already (and so moved its serial on) */
  private written = false;

  private constructor(readonly file: string, readonly data: StateData) {
    this.byAddress = new Map(Object.entries(data.resources));
  }

  static load(file: string): State {
    if (!existsSync(file)) return new State(file, { format_version: STATE_FORMAT, resources: {} });
    let data: unknown;
    let bytes: Buffer | undefined;
    try {
      bytes = readBounded(file, MAX_STATE_BYTES);
    } catch (e) {
      throw new UserError(`cannot read state file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (!bytes) throw new UserError(`state file ${file} is over ${MAX_STATE_BYTES} bytes: that is not a state file`);
    try {
      data = JSON.parse(bytes.toString('utf8'));
    } catch (e) {
      throw new UserError(`state file ${file} is not valid JSON (${(e as Error).message}); restore it from a backup or remove it and adopt with export`);
    }
    // A state edited by hand, merged badly or from another tool: refused with where it is wrong, before any use.
    const problem = checkState(data, STATE_FORMAT);
    if (problem) throw new UserError(`state file ${file}: ${problem}`);
    return new State(file, data as unknown as StateData);
  }

  /**
   * Binds the state to the platform a run talks to: the one it recorded, or (new, or older than this check) this
   * one from its next write on. Another platform is refused before anything is read: its 404s would plan a
   * re-create of everything the state knows.
   */
  bindTo(platform: Platform): void {
    const had = this.data.platform;
    if (had && (had.origin !== platform.origin || had.environment !== platform.environment)) {
      throw new UserError(`the state ${this.file} belongs to environment ${had.environment} at ${had.origin}, not ${platform.environment} at ${platform.origin}; nothing was read or written (choose that environment's state with --env or --state, or the right --base-url)`);
    }
    this.data.platform = platform;
  }

  /** Where this state stands: a plan records it, and a saved plan is applied only while it still holds. */
  ref(): StateRef {
    return { lineage: this.data.lineage ?? '', serial: this.data.serial ?? 0 };
  }

  idOf(address: string): string | undefined {
    return this.byAddress.get(address)?.id;
  }

  set(address: string, entry: StateEntry): void {
    this.data.resources[address] = entry;
    this.byAddress.set(address, entry);
  }

  /** Every id the state knows: resources that are already someone's, never adopted for another address. */
  claimedIds(): Set<string> {
    return new Set(Object.values(this.data.resources).map((e) => e.id).filter((id): id is string => !!id));
  }

  entry(address: string): StateEntry | undefined {
    return this.byAddress.get(address);
  }

  forget(address: string): boolean {
    const had = this.byAddress.delete(address);
    delete this.data.resources[address];
    return had;
  }

  /**
   * Atomic replace: a crash at any moment leaves the old file or the new one, never a torn one. The first write of
   * a run moves the serial on (a state written by a run that then crashed has moved too).
   */
  save(): void {
    if (!this.written) {
      this.data.lineage ||= randomUUID();
      this.data.serial = (this.data.serial ?? 0) + 1;
      this.written = true;
    }
    const sorted = Object.fromEntries(Object.entries(this.data.resources).sort(([a], [b]) => (a < b ? -1 : 1)));
    const { lineage, serial, platform } = this.data;
    writePrivateFile(this.file, `${JSON.stringify({ format_version: STATE_FORMAT, lineage, serial, platform, resources: sorted }, null, 2)}\n`);
  }
}
