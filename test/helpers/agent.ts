// `tapedeck agent` run in-process (the real CLI's main) until stopped, its JSON log lines collected; and bounded
// polling for what the tests wait on (never a timed assertion: each wait ends as soon as its event is seen).
import { afterEach } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Emulator } from '../../src/emulator/server.js';
import type { Clock } from '../../src/types.js';

export interface RunningAgent {
  /** the listener's base URL, once it listens */
  url: string;
  /** every log line so far, parsed (--log-format json) */
  logs(): Record<string, any>[];
  /** stderr as written */
  text(): string;
  status(): Promise<Record<string, any>>;
  /** the SIGTERM path: stops after the write in flight; the exit code */
  stop(): Promise<number>;
}

export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  limitMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`waited ${limitMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startAgent(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; clock?: Clock },
): Promise<RunningAgent> {
  let stderr = '';
  let stop!: () => void;
  const stopped = new Promise<void>((r) => {
    stop = r;
  });
  const running = main(
    ['agent', '--listen', '127.0.0.1:0', '--log-format', 'json', ...args],
    {
      out: (t) => {
        stderr += t;
      },
      err: (t) => {
        stderr += t;
      },
      env: { TAPEDECK_TOKEN: 'dev-token', ...opts.env },
      cwd: opts.cwd,
      isTTY: false,
      ...(opts.clock ? { clock: opts.clock } : {}),
    },
    stopped,
  );
  const logs = () =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  let exited: number | undefined;
  void running.then((c) => {
    exited = c;
  });
  const started = await until('the agent to start', () =>
    exited !== undefined ? { exited } : logs().find((l) => l.msg === 'agent started'),
  );
  if ('exited' in started) throw new Error(`the agent exited with ${started.exited}: ${stderr}`);
  const url = started.listen as string;
  return {
    url,
    logs,
    text: () => stderr,
    status: async () => (await fetch(`${url}/status`)).json() as Promise<Record<string, any>>,
    stop: () => {
      stop();
      return running;
    },
  };
}

/**
 * The e2e agent tests' set-up: each test puts its emulator where `current` reads it; after each test its agents are
 * stopped (a stop lets the write in flight finish, so before the emulator closes), then the emulator closes and
 * `forget` clears it. `agent` starts one on the repository's platform/ folder, polling every 200 ms.
 */
export function agentsPerTest(current: () => Emulator | undefined, forget: () => void) {
  const agents: RunningAgent[] = [];
  afterEach(async () => {
    for (const a of agents.splice(0)) await a.stop();
    await current()?.close();
    forget();
  });
  const agent = async (repo: string, cwd: string, ...extra: string[]) => {
    const a = await startAgent(
      ['--repo', repo, '--path', 'platform', '--base-url', current()!.url, '--interval', '200ms', ...extra],
      { cwd },
    );
    agents.push(a);
    return a;
  };
  return { agent, agents };
}

export const offer = (name: string, title = name) => ({ kind: 'Offer', name, spec: { project_id: 'p', name: title } });
export const offers = (e: Emulator) =>
  [...(e.store.collections.get('offers')?.values() ?? [])] as { id: string; name: string }[];
export const titles = (e: Emulator) =>
  offers(e)
    .map((o) => o.name)
    .sort();
