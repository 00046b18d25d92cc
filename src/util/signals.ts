// SIGINT and SIGTERM for a process that writes: apply (Ctrl-C, or a cancelled CI job: SIGTERM after SIGINT on GitHub
// Actions) and the agent (its service manager's SIGTERM). The first signal asks the run to stop after the writes in
// flight are answered and recorded, starting no other, as Terraform does: killed at once, a create on the wire would
// be left for the next run to look up, and a kind without a list (StandingPhase) cannot be looked up at all. The
// second exits at once (as safe as a killed run: the pending-create markers are in the state). One mechanism for both
// front ends; each says what happens in its own words (apply on stderr, the agent in its log).
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface StopOnSignals {
  /** the signal that asked the run to stop, once one did */
  stopping(): string | undefined;
  /** as if `signal` had arrived (the agent's `stop` in tests is one) */
  ask(signal: string): void;
  /** the handlers removed: the signals do what they did before */
  release(): void;
}

export interface OnStop {
  /** the first signal: the run is to stop after the writes in flight */
  first(signal: string): void;
  /** a signal after the first, just before the process exits */
  again(signal: string): void;
  /** the exit code of the second signal */
  exitCode: number;
  /** whether the process's signals are listened to (default: yes; no for a run stopped only through `ask`) */
  listen?: boolean;
  /** how the process exits (tests) */
  exit?: (code: number) => void;
}

/** Until `release`, SIGINT and SIGTERM stop the run: the first through `first`, the second by exiting. */
export function stopOnSignals(on: OnStop): StopOnSignals {
  let first: string | undefined;
  const exit = on.exit ?? ((code: number) => process.exit(code));
  const ask = (signal: string) => {
    if (first === undefined) {
      first = signal;
      on.first(signal);
    } else {
      on.again(signal);
      exit(on.exitCode);
    }
  };
  const handlers = on.listen === false ? [] : STOP_SIGNALS.map((s) => [s, () => ask(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return {
    stopping: () => first,
    ask,
    release: () => {
      for (const [s, h] of handlers) process.off(s, h);
    },
  };
}
