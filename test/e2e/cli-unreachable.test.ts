// A platform that cannot be used (issue 17): one line names the URL, the cause and what to check, not one line
// per document. Against a closed port, the emulator (plain http) given as https://, and a token it refuses.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ vods: Array.from({ length: 30 }, (_, i) => ({ id: `v${i}`, project_id: 'p', name: 'Old' })) });
});
afterAll(() => emu.close());

/** Thirty documents: whatever fails, it is said once. */
const dir = () =>
  testdir({
    'vods.yaml': Array.from({ length: 30 }, (_, i) => ({
      kind: 'Vod',
      name: `v${i}`,
      id: `v${i}`,
      spec: { name: 'New' },
    })),
  });

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe.each(['plan', 'apply'])('%s against a platform it cannot use', (command) => {
  const run = (d: string, url: string, env: Record<string, string> = {}, ...flags: string[]) =>
    runCli([command, d, '--base-url', url, '--retries', '0', ...(command === 'apply' ? ['--yes'] : []), ...flags], {
      cwd: d,
      env,
    });

  it('a closed port: one line, the URL, connection refused, is it running', async () => {
    const port = await closedPort();
    const result = await run(dir(), `http://127.0.0.1:${port}`);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      `error: cannot reach the platform at http://127.0.0.1:${port}/: the connection was refused (ECONNREFUSED). Is it running, and listening on port ${port}?\n`,
    );
  });

  it('https:// to a plain http server says so', async () => {
    const url = emu.url.replace('http://', 'https://');
    const result = await run(dir(), url);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      /^error: cannot reach the platform at https:\/\/127\.0\.0\.1:\d+\/: it does not speak TLS \([A-Z_]+\): it looks like a plain http server given as https:\/\/\. Check the scheme and the port [^\n]*\n$/,
    );
  });

  it('a refused token: one line naming where the token came from, never the token', async () => {
    const d = dir();
    const result = await run(d, emu.url, { TAPEDECK_TOKEN: 'not-the-token' });
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: the platform at ${emu.url}/ refused the token from TAPEDECK_TOKEN (401 unauthenticated). Is it a token for this platform, and still valid?\n`,
    });
    writeFileSync(join(d, 'token'), 'not-the-token\n');
    const fromFile = await run(d, emu.url, { TAPEDECK_TOKEN: '' }, '--token-file', 'token');
    expect(fromFile.stderr).toBe(
      `error: the platform at ${emu.url}/ refused the token from the token file token (401 unauthenticated). Is it a token for this platform, and still valid?\n`,
    );
    expect(result.stderr + fromFile.stderr).not.toContain('not-the-token');
    expect(emu.stats.writes).toBe(0);
  });
});

describe('export against a platform it cannot use', () => {
  const exportTo = async (url: string, env: Record<string, string> = {}) => {
    const d = testdir({});
    const run = await runCli(['export', 'out', '--base-url', url, '--project', 'p', '--retries', '0'], { cwd: d, env });
    // No document and no state: the state's lock may have made out/.tapedeck/ on the way.
    const wrote =
      existsSync(join(d, 'out')) &&
      readdirSync(join(d, 'out'), { recursive: true }).some(
        (f) => String(f).endsWith('.yaml') || String(f).endsWith('.json'),
      );
    return { ...run, wrote };
  };

  it('a closed port: exit 1, the one line of plan, nothing exported or written', async () => {
    const port = await closedPort();
    const result = await exportTo(`http://127.0.0.1:${port}`);
    expect(result).toMatchObject({ code: 1, stdout: '', wrote: false });
    expect(result.stderr).toBe(
      `error: cannot reach the platform at http://127.0.0.1:${port}/: the connection was refused (ECONNREFUSED). Is it running, and listening on port ${port}?\n`,
    );
  });

  it('a refused token: exit 1, one line naming where the token came from', async () => {
    const result = await exportTo(emu.url, { TAPEDECK_TOKEN: 'not-the-token' });
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      wrote: false,
      stderr: `error: the platform at ${emu.url}/ refused the token from TAPEDECK_TOKEN (401 unauthenticated). Is it a token for this platform, and still valid?\n`,
    });
  });
});
