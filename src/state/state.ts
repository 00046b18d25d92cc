// The state: address -> id of every resource tapedeck manages, so created resources are found again. It lives in
// a backend (a file, or a database shared by every runner: backend.ts); the engine sees only this class.
// It never holds a secret.
import { randomUUID } from 'node:crypto';
import { UserError } from '../errors.js';
import type { StateRef } from '../types.js';
import type { StateBackend, WriteInfo } from './backend.js';
import { STATE_FORMAT } from './document.js';
import { FileBackend, MAX_STATE_BYTES } from './file-backend.js';
import type { MovedTo, Platform, StateData, StateEntry } from './data.js';
import { checkState } from './shape.js';

export type { MovedTo, Platform, StateData, StateEntry } from './data.js';
export { stateDocument } from './document.js';
export { MAX_STATE_BYTES, STATE_FORMAT };

/** How a moved state names where it went, for a message. */
export const movedText = (m: MovedTo) => `${m.state}, environment ${m.environment}, at ${m.at}`;

/** A state's text as stored, checked: refused with where it is wrong, before any use. `label` names it. */
export function parseState(text: string | undefined, label: string): StateData {
  return text === undefined
    ? { format_version: STATE_FORMAT, resources: {} }
    : checkedState(() => JSON.parse(text), label);
}

/** A state as `parse` reads it (a SyntaxError where it is not JSON), checked. */
function checkedState(parse: () => unknown, label: string): StateData {
  let data: unknown;
  try {
    data = parse();
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    throw new UserError(
      `${label} is not valid JSON (${e.message}); restore it from a backup or remove it and adopt with export`,
      { code: 'E_STATE_INVALID' },
    );
  }
  // A state edited by hand, merged badly or from another tool: refused with where it is wrong, before any use.
  const problem = checkState(data, STATE_FORMAT);
  if (problem) throw new UserError(`${label}: ${problem}`, { code: 'E_STATE_INVALID' });
  return data as unknown as StateData;
}

export class State {
  /** this run has written the state already (and so moved its serial on) */
  private written = false;
  /** what this run's writes record beside the state (the database's history) */
  private info: WriteInfo = { command: 'apply' };
  /** a write asked for while another is on its way: it goes next, and takes every change made until it starts */
  private next: Promise<void> | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** addresses changed since the last write that succeeded: what the stored state does not record yet */
  private changed = new Set<string>();
  /** a platform or configuration bound that the stored state did not record yet */
  private bound = false;

  // The entries are looked up in data.resources itself: a second index of them (a Map) cost memory in proportion
  // to the state, for no measurable speed.
  private constructor(
    readonly backend: StateBackend,
    readonly data: StateData,
    private version: number,
  ) {}

  /** A state file, read at once (tests, and every caller that knows it has a file). */
  static load(file: string): State {
    return State.fromFile(new FileBackend(file));
  }

  private static fromFile(backend: FileBackend): State {
    const { parse, version } = backend.readParsed();
    return new State(
      backend,
      parse ? checkedState(parse, backend.label) : parseState(undefined, backend.label),
      version,
    );
  }

  static async open(backend: StateBackend): Promise<State> {
    if (backend instanceof FileBackend) return State.fromFile(backend);
    const { text, version } = await backend.read();
    return new State(backend, parseState(text, backend.label), version);
  }

  /** The state as messages name it: the file, or the database URL (password masked) and the environment. */
  get where(): string {
    return this.backend.name;
  }

  /** What the next writes record in the history: the command, and an apply's configuration hash. */
  writtenBy(info: WriteInfo): void {
    this.info = info;
  }

  /**
   * Binds the state to the platform a run talks to: the one it recorded, or (new, or older than this check) this
   * one from its next write on. Another platform is refused before anything is read: its 404s would plan a
   * re-create of everything the state knows.
   */
  bindTo(platform: Platform, configuration: string): string | undefined {
    const moved = this.data.moved_to;
    if (moved) {
      throw new UserError(
        `the state ${this.where} was moved by tapedeck state migrate to ${movedText(moved)}: it is kept as a backup, and its resources are that state's now; nothing was read or written (use that environment's state)`,
        { code: 'E_STATE_MISMATCH' },
      );
    }
    const note = this.bindConfiguration(configuration);
    const had = this.data.platform;
    if (had && (had.origin !== platform.origin || had.environment !== platform.environment)) {
      throw new UserError(
        `the state ${this.where} belongs to environment ${had.environment} at ${had.origin}, not ${platform.environment} at ${platform.origin}; nothing was read or written (choose that environment's state with --env or --state, or the right --base-url)`,
        { code: 'E_STATE_MISMATCH' },
      );
    }
    if (!had) this.bound = true;
    this.data.platform = platform;
    return note;
  }

  /**
   * Binds the state to the configuration a run is for: another one's state is refused before anything is read (its
   * plan would release that configuration's resources, and that one's next apply create them again). A state that
   * records none yet (older than this check) takes this one from its next write: the note says so.
   */
  bindConfiguration(configuration: string): string | undefined {
    const had = this.data.configuration;
    if (had && had !== configuration) {
      throw new UserError(
        `the state ${this.where} belongs to configuration ${had}, not ${configuration} (this directory); nothing was read or written (use this configuration's own state, or, if this is ${had} moved, set name: ${yamlText(had)} in its tapedeck.yaml)`,
        { code: 'E_STATE_MISMATCH' },
      );
    }
    if (!had) this.bound = true;
    this.data.configuration = configuration;
    if (had || !Object.keys(this.data.resources).length) return undefined;
    return `the state ${this.where} records no configuration yet: it is bound to configuration ${configuration} from its next write`;
  }

  /** Where this state stands: a plan records it, and a saved plan is applied only while it still holds. */
  ref(): StateRef {
    return { lineage: this.data.lineage ?? '', serial: this.data.serial ?? 0 };
  }

  idOf(address: string): string | undefined {
    return this.entry(address)?.id;
  }

  set(address: string, entry: StateEntry): void {
    this.data.resources[address] = entry;
    this.changed.add(address);
  }

  /**
   * Whether a write would store something the stored state lacks: a changed entry, a binding, or the state itself
   * (never written). An apply with nothing to do leaves it, and its serial, as they were, as Terraform does: a
   * moved serial would make every plan saved meanwhile stale, and add a version to a database's history each time.
   */
  needsWrite(): boolean {
    return this.changed.size > 0 || this.bound || !this.data.lineage;
  }

  /** The addresses whose entries changed since the last write that succeeded (all written: none). */
  unsaved(): ReadonlySet<string> {
    return this.changed;
  }

  /** Why the lock this run took is gone, as soon as the backend knows it without asking. */
  lockLost(): string | undefined {
    return this.backend.lockLost();
  }

  /** Throws (a UserError saying why) unless the lock this run took is still held. */
  checkLock(): Promise<void> {
    return this.backend.checkLock();
  }

  /** The addresses of the entries that are managed (released ones left out). */
  managedAddresses(): string[] {
    return Object.keys(this.data.resources).filter((a) => !this.data.resources[a].released_at);
  }

  /** Every id the state knows: resources that are already someone's, never adopted for another address. */
  claimedIds(): Set<string> {
    return new Set(
      Object.values(this.data.resources)
        .map((e) => e.id)
        .filter((id): id is string => !!id),
    );
  }

  entry(address: string): StateEntry | undefined {
    return Object.hasOwn(this.data.resources, address) ? this.data.resources[address] : undefined;
  }

  forget(address: string): boolean {
    const had = Object.hasOwn(this.data.resources, address);
    delete this.data.resources[address];
    if (had) this.changed.add(address);
    return had;
  }

  /**
   * Writes the state (a compare-and-set on what was read: another writer's state is never overwritten). The first
   * write of a run moves the serial on (a state written by a run that then crashed has moved too). A file is
   * written before this returns; a database write is on its way, one at a time, and the promise says when it is
   * done: saves asked for meanwhile become one write, of the state as it is when that write starts.
   */
  save(): Promise<void> {
    if (!this.written) {
      this.data.lineage ||= randomUUID();
      this.data.serial = (this.data.serial ?? 0) + 1;
      this.written = true;
    }
    this.bound = false;
    if (this.backend instanceof FileBackend) {
      this.version = this.backend.write(this.data, this.refs(), this.version);
      this.changed.clear();
      return Promise.resolve();
    }
    this.next ??= this.writing
      .catch(() => {})
      .then(() => {
        this.next = undefined;
        const taken = this.changed;
        this.changed = new Set();
        this.writing = (async () => {
          try {
            this.version = await this.backend.write(this.data, this.refs(), this.version, this.info);
          } catch (e) {
            for (const a of taken) this.changed.add(a);
            throw e;
          }
        })();
        return this.writing;
      });
    return this.next;
  }

  private refs() {
    return { lineage: this.data.lineage!, serial: this.data.serial! };
  }
}

/** A name as tapedeck.yaml must hold it: bare when YAML reads it back as written, else quoted (JSON is YAML). */
const yamlText = (name: string) => (/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(name) ? name : JSON.stringify(name));
