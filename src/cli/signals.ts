// Ctrl-C (SIGINT) or a cancelled CI job (SIGTERM, after SIGINT on GitHub Actions) while a run writes: the first one
// lets the writes in flight be answered and recorded and starts no other, as Terraform does; killed at once, a create
// on the wire would be left for the next run to look up, and a kind without a list (StandingPhase) cannot be looked
// up at all. The second one exits at once (as safe as a killed apply: the pending-create markers are in the state).
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface Interruptible {
  /** the signal that asked the run to stop, once one did */
  stopping(): string | undefined;
  /** the handlers removed: the signals do what they did before */
  release(): void;
}

/** While `release` is not called, SIGINT and SIGTERM stop the run gracefully; `say` tells the user what happens. */
export function stopOnSignals(say: (line: string) => void): Interruptible {
  let first: string | undefined;
  const on = (signal: string) => {
    if (first === undefined) {
      first = signal;
      say(`${signal}: stopping after the writes in flight (again to exit at once)\n`);
    } else {
      say(`${signal} again: exiting now\n`);
      process.exit(130);
    }
  };
  const handlers = SIGNALS.map((s) => [s, () => on(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return {
    stopping: () => first,
    release: () => {
      for (const [s, h] of handlers) process.off(s, h);
    },
  };
}
