// Secrets (the token, RTMP stream keys) appear in no output, plan file, state, Markdown or export of any command.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir, type CliRun } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'tok_3f9a8b7c6d5e4f3a2b1c';
const KEYS = ['live_sk_9z8y7x6w5v4u', 'live_sk_other_ingest_77'];
let emu: Emulator | undefined;
afterEach(() => emu?.close());

const everyFile = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const full = join(dir, f);
    return statSync(full).isDirectory() ? everyFile(full) : [full];
  });

it('no command or output format writes the token or a stream key anywhere', async () => {
  emu = await emulator(
    {
      rtmp_ingests: [
        { id: 'ing1', project_id: 'p', key: KEYS[0], name: 'Cam' },
        { id: 'ing2', project_id: 'p', key: KEYS[1], name: 'Cam 2' },
      ],
      action_configurations: [
        { annotation_type_id: 'at1', configuration: { notify: { api_key: '$secret.webhook_key' } } },
      ],
    },
    { tokens: [TOKEN] },
  );
  const dir = testdir({
    'a.yaml': [
      { kind: 'RtmpIngest', name: 'cam', id: 'ing1', spec: { name: 'Camera 1', description: 'pitch side' } },
      { kind: 'RtmpIngest', name: 'cam2', id: 'ing2', spec: { disabled: true } },
      {
        kind: 'ActionConfiguration',
        name: 'notify',
        spec: {
          annotation_type_id: 'at1',
          configuration: { notify: { api_key: '$secret.webhook_key', channel: 'ops' } },
        },
      },
    ],
  });
  const tokenFile = join(tempDir('tapedeck-token-'), 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  const env = { TAPEDECK_TOKEN: TOKEN };
  const run = (args: string[], e: Record<string, string> = env) => runCli(args, { cwd: dir, env: e });
  const runs: CliRun[] = [
    await run(['validate', dir]),
    await run(['plan', ...against(emu.url, dir), '--debug']),
    await run(['plan', ...against(emu.url, dir), '--json', '--out', 'plan.json']),
    await run(['plan', ...against(emu.url, dir), '--format', 'markdown']),
    await run(['plan', ...against(emu.url, dir)], { TAPEDECK_TOKEN: '', CI: 'true' }),
    await run(['plan', ...against(emu.url, dir), '--token-file', tokenFile], { TAPEDECK_TOKEN: '' }),
    await run(['apply', dir, '--base-url', emu.url, '--plan', 'plan.json', '--yes', '--format', 'markdown', '--debug']),
    await run(['apply', ...against(emu.url, dir), '--yes', '--json']),
    await run([
      'export',
      join(dir, 'exported'),
      '--base-url',
      emu.url,
      '--id',
      'RtmpIngest=ing1',
      '--id',
      'RtmpIngest=ing2',
      '--id',
      'ActionConfiguration=at1',
    ]),
    await run(['state', 'list', dir, '--json']),
    await run(['state', 'list', dir]),
    await run(['plan', ...against(emu.url, dir), '--json'], { TAPEDECK_TOKEN: `${TOKEN}x` }),
    await run(['plan', ...against('http://platform.example', dir)]),
  ];
  expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1]);
  expect(runs[1].stderr).toMatch(/debug: GET \/streaming\/rtmp_ingests\/v1\/ing1 -> 200/);
  expect(runs[6].stdout).toMatch(/^### tapedeck apply: complete/);
  const written = everyFile(dir).map((f) => [f, readFileSync(f, 'utf8')] as const);
  expect(written.map(([f]) => f.slice(dir.length))).toEqual(
    expect.arrayContaining(['/plan.json', '/.tapedeck/default.state.json', '/exported/rtmp-ingest.yaml']),
  );
  for (const text of [...runs.flatMap((r) => [r.stdout, r.stderr]), ...written.map(([, t]) => t)]) {
    expect(text).not.toContain(TOKEN);
    for (const key of KEYS) expect(text).not.toContain(key);
  }
  expect(statSync(join(dir, '.tapedeck/default.state.json')).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, 'plan.json')).mode & 0o777).toBe(0o600);
});
