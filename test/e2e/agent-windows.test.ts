// The agent and change windows (issue 47): a reconcile whose change a live-event window holds applies the rest and
// holds it, says so in /status and /metrics, and runs again when the window closes (not at its next interval),
// applying it then. The real agent in-process, a real git repository, the real emulator; the clock is the test's.
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { manualClock } from '../../src/util/clock.js';
import { startAgent, until, type RunningAgent } from '../helpers/agent.js';
import { call, emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
let running: RunningAgent | undefined;
afterEach(async () => {
  await running?.stop();
  await emu?.close();
  running = emu = undefined;
});

describe('the agent holds what a window holds, and applies it when the window closes', () => {
  it('held in /status and /metrics, the next run scheduled at the window end, then applied once', async () => {
    emu = await emulator({
      events: [{ id: 'ev_derby', project_id: 'p', title: 'Derby day', start_time: '2026-12-05T19:00:00Z' }],
      offers: [
        { id: 'off_pass', project_id: 'p', name: 'Match pass', priority: '1', target: { event_ids: ['ev_derby'] } },
      ],
    });
    const repo = testRepo();
    repo.push({
      'platform/tapedeck.yaml': stringify({
        version: 1,
        windows: [
          { name: 'matches', kind: 'deny', during: 'live_events', before: '2h', after: '30m', event_duration: '2h' },
        ],
      }),
      'platform/offers.yaml': [
        {
          kind: 'Offer',
          name: 'pass',
          id: 'off_pass',
          spec: { project_id: 'p', name: 'Match pass', priority: 5, target: { event_ids: ['ev_derby'] } },
        },
        { kind: 'Offer', name: 'other', spec: { project_id: 'p', name: 'Unrelated', priority: 3 } },
      ],
    });
    const clock = manualClock(new Date('2026-12-05T18:00:00Z'));
    running = await startAgent(
      ['--repo', repo.bare, '--path', 'platform', '--base-url', emu.url, '--interval', '24h', '--auto-apply'],
      { cwd: tempDir(), clock },
    );
    const first = await until('the first run', async () => {
      const s = await running!.status();
      return s.last_run && s;
    });
    expect(first.last_run.result, running.text()).toBe('success');
    expect(first.held).toEqual([
      { address: 'Offer/pass', action: 'update', windows: ['matches'], next_allowed: '2026-12-05T21:30:00Z' },
    ]);
    // Not in 24 hours: when the window ends.
    expect(first.next_run_at).toBe('2026-12-05T21:30:00.000Z');
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/^tapedeck_agent_changes_held 1$/m);
    const priority = async () => (await call(emu!, 'GET', '/monetization/offers/v1/off_pass')).body.offer.priority;
    expect(await priority()).toBe('1');
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(1); // Offer/other, not held

    clock.set(new Date('2026-12-05T21:30:00Z'));
    const second = await until('the run after the window', async () => {
      const s = await running!.status();
      return s.runs >= 2 && s;
    });
    expect(second.last_run.result, running.text()).toBe('success');
    expect(second.held).toEqual([]);
    expect(await priority()).toBe('5');
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(1);
    expect(await (await fetch(`${running.url}/metrics`)).text()).toMatch(/^tapedeck_agent_changes_held 0$/m);
  });
});
