// Ctrl-C (SIGINT) or a CI job's cancellation (SIGTERM) during an apply, as a user does it: the built CLI as its own
// process, the signal sent while a create is on the wire. The create's answer is waited for and its id recorded, so
// nothing is left to look up (a StandingPhase cannot be looked up at all: killed at once, the next plan stops), and no
// other write starts. A second signal exits at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { finished, runBin, startBin } from '../helpers/bin.js';
import { testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const phase = (name: string) => ({
  kind: 'StandingPhase',
  name,
  spec: { project_id: 'p', localized_name: { en: name } },
});

/** An apply of two StandingPhase creates, one at a time, signalled once the first create has reached the platform. */
async function interrupted(signal: NodeJS.Signals, times: 1 | 2) {
  // Every answer comes 1.5 s after its request: the signal arrives while the first create waits for its answer.
  emu = await emulator({}, { latencyMs: 1500 });
  const dir = testdir({ 'phases.yaml': [phase('a'), phase('b')] });
  const run = startBin(['apply', dir, '--base-url', emu.url, '--yes', '--concurrency', '1'], dir);
  const exited = finished(run);
  let said = '';
  run.stderr!.on('data', (c) => (said += c));
  while (!emu.writes().length) await sleep(5);
  run.kill(signal);
  // A signal sent again before the first was handled would be one signal: the second waits for the first's answer.
  if (times > 1) {
    while (!said.includes('stopping after')) await sleep(5);
    run.kill(signal);
  }
  return { dir, result: await exited };
}

const phases = () => [...emu!.store.collections.get('standing_phases')!.values()];

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  it(`${signal} mid-apply: the create in flight is answered and recorded, no other write starts, exit 1`, async () => {
    const { dir, result } = await interrupted(signal, 1);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${signal}: stopping after the writes in flight`);
    expect(result.stderr).toMatch(/StandingPhase\/b: skipped: stopping \(SIG(INT|TERM)\); the next run applies it/);
    expect(emu!.writes().length).toBe(1);
    const state = JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
    expect(state.resources['StandingPhase/a'].id).toBe(phases()[0].id);
    expect(state.resources['StandingPhase/a'].pending_create).toBeUndefined();
    // The next run has only what was not started: no lookup, no question, no duplicate.
    const rerun = await runBin(['apply', dir, '--base-url', emu!.url, '--yes'], dir);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain('1 applied, 0 failed, 0 skipped, 1 unchanged');
    expect(phases().map((p) => (p.localized_name as { en: string }).en)).toEqual(['a', 'b']);
  });
}

it('SIGINT twice: the second exits at once, without waiting for the answer', async () => {
  const { result } = await interrupted('SIGINT', 2);
  expect(result.code, result.stderr).toBe(130);
  expect(result.stderr).toContain('SIGINT again: exiting now');
  expect(emu!.writes().length).toBe(1);
});
