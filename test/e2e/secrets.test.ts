// Secrets (the token, RTMP stream keys) appear in no output, plan file or state file of any command.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

const TOKEN = 'tok_3f9a8b7c6d5e4f3a2b1c';
const STREAM_KEY = 'live_sk_9z8y7x6w5v4u';
let emu: Emulator | undefined;
afterEach(() => emu?.close());

const everyFile = (dir: string): string[] => readdirSync(dir).flatMap((f) => {
  const full = join(dir, f);
  return statSync(full).isDirectory() ? everyFile(full) : [full];
});

it('no command, output format or file written holds the token or a stream key', async () => {
  emu = await emulator({ rtmp_ingests: [{ id: 'ing1', project_id: 'p', key: STREAM_KEY, name: 'Cam' }] }, { tokens: [TOKEN] });
  const dir = testdir({ 'a.yaml': { kind: 'RtmpIngest', name: 'cam', id: 'ing1', spec: { name: 'Camera 1', description: 'pitch side' } } });
  const env = { TAPEDECK_TOKEN: TOKEN };
  const runs = [
    await runCli(['validate', dir], { cwd: dir, env }),
    await runCli(['plan', ...against(emu.url, dir), '--debug'], { cwd: dir, env }),
    await runCli(['plan', ...against(emu.url, dir), '--json', '--out', 'plan.json'], { cwd: dir, env }),
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--debug'], { cwd: dir, env }),
    await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir, env }),
    await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir, env: { TAPEDECK_TOKEN: `${TOKEN}x` } }),
  ];
  expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 1]);
  expect(runs[1].stderr).toMatch(/debug: GET \/streaming\/rtmp_ingests\/v1\/ing1 -> 200/);
  const written = everyFile(dir).map((f) => readFileSync(f, 'utf8'));
  expect(written.length).toBeGreaterThanOrEqual(3);
  for (const text of [...runs.flatMap((r) => [r.stdout, r.stderr]), ...written]) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(STREAM_KEY);
  }
  const state = join(dir, '.tapedeck/default.state.json');
  expect(statSync(state).mode & 0o777).toBe(0o600);
});
