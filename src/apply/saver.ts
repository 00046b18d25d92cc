// The state's side of an apply: saves paced so a large state is not rewritten after every update (creates and
// pending markers are saved at once), and the one reason the apply sends nothing more: a save that failed, or the
// lock on the state gone (another run may hold it and be writing).
import { errorCode, errorLine, NotSent, type ErrorCode } from '../errors.js';
import type { State } from '../state/state.js';

/**
 * How often, at most, the state is rewritten for updates: a second apart, and ten times as long as its last write
 * took (a large state's text takes a noticeable time to write).
 */
const SAVE_EVERY_MS = 1000;
const SAVE_SHARE = 10;

export class Saver {
  private savedAt = Date.now();
  private saveTook = 0;
  /** why the state could not be saved (or, at the end, may not be); from then on nothing more is sent */
  error: { message: string; code: ErrorCode } | undefined;
  /** why nothing more may be sent */
  private stop: string | undefined;

  constructor(private readonly state: State) {}

  /** Why nothing more may be sent, if so: the state cannot be saved, or the lock on it is known lost. */
  stopped(): string | undefined {
    return (this.stop ??= this.state.lockLost());
  }

  /** Nothing more is sent, for `why` (the lock was not confirmed before a write). */
  stopWith(why: string): void {
    this.stop ??= why;
  }

  private failed(e: unknown): void {
    this.error ??= { message: errorLine(e), code: errorCode(e) };
  }

  /** Ids of created resources must never be lost (`urgent`); other changes to the state can wait a moment. */
  async save(urgent: boolean): Promise<void> {
    // No write without the lock; nor, once a save failed, a create whose marker could not be stored.
    const why = this.stopped();
    if (why) throw new NotSent(why);
    if (!urgent && Date.now() - this.savedAt < Math.max(SAVE_EVERY_MS, SAVE_SHARE * this.saveTook)) return;
    const started = Date.now();
    // Set before the save is awaited, so the writes finishing meanwhile do not each start one.
    this.savedAt = started;
    try {
      await this.state.save();
    } catch (e) {
      // A save cut short by the lock's loss (its connection goes with the lock) failed for that reason.
      const lost = this.state.lockLost();
      if (lost) this.error ??= { message: lost, code: 'E_LOCKED' };
      this.failed(e);
      this.stop ??= lost ?? `the state could not be saved (${this.error!.message})`;
      throw new NotSent(this.stop);
    }
    this.savedAt = Date.now();
    this.saveTook = this.savedAt - started;
  }

  /**
   * The last save, with the lock confirmed first: without the lock the state is not written (another run may be
   * writing it), and that is the state's error; a save that failed is tried again. A plan of noops that changed
   * nothing in the state writes nothing (`planned`: the plan had writes; their apply is recorded whatever came of it).
   */
  async finish(planned: boolean): Promise<void> {
    if (!this.stop)
      await this.state.checkLock().catch((e: unknown) => {
        this.stop = errorLine(e);
      });
    const lockGone = this.stopped() && !this.error ? this.stop : undefined;
    if (lockGone) this.error = { message: lockGone, code: 'E_LOCKED' };
    else if (planned || this.state.needsWrite()) await this.state.save().catch((e: unknown) => this.failed(e));
  }
}
