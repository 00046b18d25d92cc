// A platform that refuses a write and quotes what it was sent: a value from the environment in that request must not
// come back out through the error, in any output format, the saved plan's apply or the state. Values shorter than 8
// characters are not masked everywhere (they would hide ordinary words), so the write's error is masked of the very
// values that write sent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { hostileServer, secretSpellings } from '../helpers/hostile.js';

let emu: Emulator | undefined;
let server: Awaited<ReturnType<typeof hostileServer>> | undefined;
afterEach(async () => {
  await server?.close();
  await emu?.close();
});

it.each([
  ['short', 'k9z"7q'],
  ['long, with a quote and a line separator', 'partner\u2028"key"-77'],
])('a write refused with an error that quotes the %s value it was sent from the environment', async (_, secret) => {
  emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'Premium' }] });
  server = await hostileServer(emu.url, (req, res) => {
    if (req.method !== 'PATCH') return false;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const sent = String(JSON.parse(body).offer.billing_partner_offer_id);
      const message = `billing_partner_offer_id ${JSON.stringify(sent)} (${sent.toUpperCase()}, ${Buffer.from(sent).toString('base64')}) is not a partner offer`;
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'INVALID_ARGUMENT', message }));
    });
    return true;
  });
  const dir = testdir({
    'a.yaml': { kind: 'Offer', name: 'o', id: 'off_1', spec: { billing_partner_offer_id: '${env.PARTNER}' } },
  });
  const env = { PARTNER: secret };
  const base = [dir, '--base-url', server.url];
  await runCli(['plan', ...base, '--out', 'plan.json'], { cwd: dir, env });
  const runs = [
    await runCli(['apply', ...base, '--plan', 'plan.json', '--yes'], { cwd: dir, env }),
    await runCli(['apply', ...base, '--yes'], { cwd: dir, env }),
    await runCli(['apply', ...base, '--yes', '--json'], { cwd: dir, env }),
    await runCli(['apply', ...base, '--yes', '--format', 'markdown'], { cwd: dir, env }),
  ];
  expect(server.hits()).toBe(4);
  const state = readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8');
  for (const run of runs) {
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('is not a partner offer');
    expect(run.stdout + run.stderr).toContain('(sensitive)');
  }
  for (const out of [...runs.map((r) => r.stdout + r.stderr), state])
    for (const s of secretSpellings(secret)) expect(out).not.toContain(s);
});
