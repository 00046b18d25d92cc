// Fleets of tapedeck processes for the budget's tests and benchmark: each its own process of the built CLI, planning
// one-GET documents (Vods with ids, one read each) against one emulator, their requests counted from its call log.
import type { ChildProcess } from 'node:child_process';
import { busiestSecond, type Call } from '../../src/emulator/calls.js';
import { bin, finished, start } from './bin.js';
import type { CliRun } from './cli.js';
import { testdir } from './cli.js';

/** The emulator's seed for `n` Vods of the fleet member `tag`. */
export const fleetVods = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${tag}-${i}`, project_id: 'p', name: `Vod ${i}` }));

/** One-GET documents: each Vod named by its id, unchanged (the plan reads each once and changes nothing). */
export const fleetDocs = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'Vod',
    name: `${tag}-${i}`,
    id: `${tag}-${i}`,
    spec: { name: `Vod ${i}` },
  }));

/** A configuration of its own for the fleet member `tag`: one environment `tag` with `budget` (none: no budget),
 *  its state where `state` says (a file path or a database URL), and its `n` documents. */
export function fleetMember(tag: string, n: number, budget: object | undefined, state: string): string {
  return testdir({
    'tapedeck.yaml': {
      version: 1,
      name: `fleet-${tag}`,
      environments: { [tag]: { ...(budget ? { budget } : {}), state } },
    },
    'vods.yaml': fleetDocs(tag, n),
  });
}

/** `tapedeck plan DIR --env TAG --json` as its own process. */
export function startPlan(
  dir: string,
  tag: string,
  url: string,
  env: Record<string, string> = {},
  extra: string[] = [],
) {
  return start(process.execPath, [bin, 'plan', dir, '--env', tag, '--base-url', url, '--json', ...extra], {
    cwd: dir,
    env: { TAPEDECK_TOKEN: 'dev-token', CI: '', ...env },
  });
}

export const runAll = (children: ChildProcess[]): Promise<CliRun[]> => Promise.all(children.map(finished));

/** The calls of one fleet member (by its documents' ids), and what the emulator refused with 429. */
export const callsOf = (calls: readonly Call[], tag: string) => calls.filter((c) => c.path.includes(`/${tag}-`));
export const refused = (calls: readonly Call[]) => calls.filter((c) => c.status === 429);
/** The most requests the platform received in any one second, 429s included (they count against the customer). */
export const busiest = (calls: readonly Call[]) => busiestSecond(calls);
