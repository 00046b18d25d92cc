// The agent under the fleet's budget: its runs lease their part as the agent role (priority agent), and /metrics
// exports the rate it last held and the time it waited on the budget. The real agent in-process, a real git
// repository, the real emulator.
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { HEADROOM } from '../../src/budget/allocate.js';
import { offer, startAgent, until, type RunningAgent } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
let running: RunningAgent | undefined;
afterEach(async () => {
  await running?.stop();
  await emu?.close();
  running = emu = undefined;
});

describe("the agent's part of the budget", () => {
  it('exports its share and its waits as metrics after a run', async () => {
    emu = await emulator({}, { clock: undefined });
    const repo = testRepo();
    repo.push({
      'platform/tapedeck.yaml': stringify({ version: 1, environments: { prod: { budget: { max_rps: 30 } } } }),
      'platform/offers.yaml': [offer('a'), offer('b')],
    });
    running = await startAgent(
      ['--repo', repo.bare, '--path', 'platform', '--env', 'prod', '--base-url', emu.url, '--interval', '1h'],
      { cwd: tempDir() },
    );
    const status = await until('the first run', async () => (await running!.status()).last_run);
    expect(status.result, running.text()).toBe('success');
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    const share = /^tapedeck_agent_budget_share_requests_per_second (\S+)$/m.exec(metrics)?.[1];
    expect(Number(share)).toBeCloseTo(HEADROOM * 30);
    expect(metrics).toMatch(/^tapedeck_agent_budget_wait_seconds_total [\d.e-]+$/m);
  });
});
