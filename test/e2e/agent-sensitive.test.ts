// The agent's own outputs (its log, /status, /metrics) are made from the same runs as the CLI's: a value from the
// environment that is itself invalid is reported there without its value, however short.
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { startAgent, until, type RunningAgent } from '../helpers/agent.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { secretSpellings } from '../helpers/hostile.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
let agent: RunningAgent | undefined;
afterEach(async () => {
  await agent?.stop();
  await emu?.close();
});

it('an invalid ${env.NAME} value is reported in the log and /status without its value; /metrics holds none', async () => {
  const secret = 'wkly9x';
  emu = await emulator();
  const repo = testRepo();
  const price = { price: { currency_code: 'EUR', units: '5' }, billing_period: '${env.PERIOD}' };
  repo.push({
    'platform/offers.yaml': [{ kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A', offer_prices: [price] } }],
  });
  agent = await startAgent(
    [
      '--repo',
      repo.bare,
      '--path',
      'platform',
      '--base-url',
      emu.url,
      '--interval',
      '200ms',
      '--auto-apply',
      '--document-env',
      'PERIOD',
    ],
    { cwd: tempDir(), env: { PERIOD: secret } },
  );
  const status = await until('the commit rejected', async () => {
    const s = await agent!.status();
    return s.last_error && s;
  });
  expect(status.last_error.message).toContain('billing_period: (sensitive) is not an enum name');
  const metrics = await (await fetch(`${agent.url}/metrics`)).text();
  const statusText = await (await fetch(`${agent.url}/status`)).text();
  for (const out of [agent.text(), statusText, metrics])
    for (const s of secretSpellings(secret)) expect(out).not.toContain(s);
  expect(emu.writes()).toEqual([]);
});
