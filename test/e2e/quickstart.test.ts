// The README's quick start and the installed bin, as separate processes.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');

describe('quick start', () => {
  it('npm run demo: plan, apply, and a second plan with no changes', async () => {
    const { stdout } = await run(tsx, ['scripts/demo.ts'], { cwd: root });
    expect(stdout).toContain('$ tapedeck apply examples/basic');
    expect(stdout).toMatch(/Apply complete: \d+ applied, 0 failed, 0 skipped/);
    expect(stdout).toMatch(/plan again: nothing left to do\nNo changes\. \d+ resources up to date\./);
    expect(stdout).not.toContain('live_sk_');
  });

  it('the bin runs as a process, exit codes included', async () => {
    const bin = existsSync(join(root, 'dist/cli/bin.js')) ? ['node', [join(root, 'dist/cli/bin.js')]] as const : [tsx, [join(root, 'src/cli/bin.ts')]] as const;
    const ok = await run(bin[0], [...bin[1], 'validate', 'examples/basic'], { cwd: root });
    expect(ok.stdout).toMatch(/^\d+ documents valid\.\n$/);
    const bad = await run(bin[0], [...bin[1], 'validate', 'no-such-dir'], { cwd: root }).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no-such-dir: no such directory/);
    const version = await run(bin[0], [...bin[1], '--version'], { cwd: root });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const schema = await run(bin[0], [...bin[1], 'schema', 'Offer'], { cwd: root });
    expect(JSON.parse(schema.stdout).$id).toBe('offer.schema.json');
  });
});
