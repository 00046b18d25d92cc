// The last line of defence (cli/main.ts masks everything a command prints): a secret that reaches output by a path
// no other part masks, here the token pasted by mistake into a document's value, is still never printed. Removing
// the masking in main.ts makes this test fail.
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

const TOKEN = 'tok_pasted_9f8e7d6c5b4a';
let emu: Emulator | undefined;
afterEach(() => emu?.close());

it.each([
  ['text', []],
  ['json', ['--json']],
  ['markdown', ['--format', 'markdown']],
])('a token pasted into a document is masked in the %s plan and in validate', async (_, format) => {
  emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, { tokens: [TOKEN] });
  const dir = testdir({ 'a.yaml': [{ kind: 'Vod', name: 'v', id: 'v1', spec: { name: `Replay ${TOKEN}` } }] });
  const env = { TAPEDECK_TOKEN: TOKEN };
  const plan = await runCli(['plan', ...against(emu.url, dir), ...format], { cwd: dir, env });
  expect(plan.code).toBe(0);
  // The change is there (the masked value is shown), the token is not.
  expect(plan.stdout).toContain('Replay [redacted]');
  const validate = await runCli(['validate', dir, '--format', 'json'], { cwd: dir, env });
  for (const out of [plan.stdout, plan.stderr, validate.stdout, validate.stderr]) expect(out).not.toContain(TOKEN);
});
