// util/signals.ts, the one SIGINT/SIGTERM mechanism of apply and the agent: the first signal asks the run to stop,
// the second exits with the front end's code; the process's handlers are there until released, and only if listened.
import { describe, expect, it } from 'vitest';
import { STOP_SIGNALS, stopOnSignals } from '../../src/util/signals.js';

function recorded(listen?: boolean) {
  const said: string[] = [];
  const exits: number[] = [];
  const signals = stopOnSignals({
    first: (s) => said.push(`first ${s}`),
    again: (s) => said.push(`again ${s}`),
    exitCode: 143,
    listen,
    exit: (code) => exits.push(code),
  });
  return { said, exits, signals };
}

describe('stopOnSignals', () => {
  it.each([
    ['none', [], [], [], undefined],
    ['one', ['SIGTERM'], ['first SIGTERM'], [], 'SIGTERM'],
    ['two', ['SIGINT', 'SIGTERM'], ['first SIGINT', 'again SIGTERM'], [143], 'SIGINT'],
    ['three', ['stop', 'SIGINT', 'SIGINT'], ['first stop', 'again SIGINT', 'again SIGINT'], [143, 143], 'stop'],
  ])('%s asked', (_name, asked, said, exits, stopping) => {
    const r = recorded();
    try {
      for (const s of asked) r.signals.ask(s);
      expect(r.said).toEqual(said);
      expect(r.exits).toEqual(exits);
      expect(r.signals.stopping()).toBe(stopping);
    } finally {
      r.signals.release();
    }
  });

  it("listens to the process's SIGINT and SIGTERM until released, each handler asking by its own name", () => {
    const before = STOP_SIGNALS.map((s) => process.listeners(s).length);
    const r = recorded();
    const added = STOP_SIGNALS.map((s) => process.listeners(s).at(-1)!);
    expect(STOP_SIGNALS.map((s) => process.listeners(s).length)).toEqual(before.map((n) => n + 1));
    added[1]('SIGTERM');
    added[0]('SIGINT');
    expect(r.said).toEqual(['first SIGTERM', 'again SIGINT']);
    r.signals.release();
    expect(STOP_SIGNALS.map((s) => process.listeners(s).length)).toEqual(before);
  });

  it("leaves the process's signals alone when not listening", () => {
    const before = STOP_SIGNALS.map((s) => process.listeners(s).length);
    const r = recorded(false);
    expect(STOP_SIGNALS.map((s) => process.listeners(s).length)).toEqual(before);
    r.signals.ask('stop');
    expect(r.said).toEqual(['first stop']);
    r.signals.release();
  });
});
