// Every plan, apply and confirmation prompt names where it goes: the environment, the base URL and the state.
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function setup() {
  emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
  const dir = testdir({
    'tapedeck.yaml': { version: 1, environments: { staging: { base_url: emu.url, state: 'states/staging.json' } } },
    'vod.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } },
  });
  return { dir, url: `${emu.url}/`, args: ['--env', 'staging'] };
}

describe('where a run goes', () => {
  it('the confirmation prompt names the environment, the base URL and the state; "no" sends nothing', async () => {
    const { dir, url, args } = await setup();
    const asked: string[] = [];
    let stdout = '';
    const code = await main(['apply', dir, ...args], {
      out: (t) => {
        stdout += t;
      },
      err: () => {},
      env: { TAPEDECK_TOKEN: 'dev-token' },
      cwd: dir,
      isTTY: true,
      ask: async (q) => {
        asked.push(q);
        return 'no';
      },
    });
    expect(code).toBe(1);
    expect(asked).toEqual([
      `Apply these changes to environment staging at ${url}, state states/staging.json? Only "yes" is accepted: `,
    ]);
    expect(stdout.split('\n')[0]).toBe(`Plan for environment staging at ${url}, state states/staging.json`);
    expect(emu!.stats.writes).toBe(0);
  });

  it("text and Markdown headers, and the apply JSON's environment", async () => {
    const { dir, url, args } = await setup();
    const text = await runCli(['plan', dir, ...args], { cwd: dir });
    expect(text.stdout.split('\n')[0]).toBe(`Plan for environment staging at ${url}, state states/staging.json`);
    const md = await runCli(['plan', dir, ...args, '--format', 'markdown'], { cwd: dir });
    expect(md.stdout.split('\n').slice(0, 3)).toEqual([
      '### tapedeck plan for `staging`',
      '',
      `Environment \`staging\` at \`${url}\`, state \`states/staging.json\``,
    ]);
    const json = await runCli(['plan', dir, ...args, '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).environment).toEqual({ name: 'staging', base_url: url });
    const applied = await runCli(['apply', dir, ...args, '--yes', '--json'], { cwd: dir });
    expect(JSON.parse(applied.stdout)).toMatchObject({
      format_version: 1,
      environment: { name: 'staging', base_url: url },
      summary: { applied: 1 },
    });
  });

  it('the apply Markdown names it too; a state outside the working directory is named by its full path', async () => {
    const { dir, url, args } = await setup();
    const elsewhere = testdir({});
    const md = await runCli(['apply', dir, ...args, '--yes', '--format', 'markdown'], { cwd: elsewhere });
    expect(md.stdout.split('\n').slice(0, 3)).toEqual([
      '### tapedeck apply: complete',
      '',
      `Environment \`staging\` at \`${url}\`, state \`${dir}/states/staging.json\``,
    ]);
  });
});
