// At most N configurations reconciled at once by one replica (--parallel N). A run waits for a slot, holds it only
// while it runs, and the next waiting run takes it in the order they came: a slow configuration holds one slot, not
// the others' turns.
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
