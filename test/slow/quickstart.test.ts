// The README's quick start and the installed bin, as separate processes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, root, runBin, start } from '../helpers/bin.js';
import { tempDir } from '../helpers/tmp.js';

describe('quick start', () => {
  it('npm run demo: plan, apply, and a second plan with no changes', async () => {
    // The demo runs from src/ through tsx, as `npm run demo` does; its state directory goes inside one removed after this file.
    const demo = await finished(
      start(join(root, 'node_modules/.bin/tsx'), ['scripts/demo.ts'], { env: { TMPDIR: tempDir('tapedeck-demo-') } }),
    );
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('$ tapedeck apply examples/basic');
    expect(demo.stdout).toMatch(/Apply complete: \d+ applied, 0 failed, 0 skipped/);
    expect(demo.stdout).toMatch(
      /plan again: nothing left to do\nPlan for environment default at http:\/\/127\.0\.0\.1:\d+\/, state \S+\n\nNo changes\. \d+ resources up to date\./,
    );
    expect(demo.stdout).not.toContain('live_sk_');
  });

  it('the built bin runs as a process, exit codes included', async () => {
    const ok = await runBin(['validate', 'examples/basic']);
    expect(ok).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+ documents valid\.\n$/) });
    const bad = await runBin(['validate', 'no-such-dir']);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/no-such-dir: no such directory/) });
    const version = await runBin(['--version']);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const schema = await runBin(['schema', 'Offer']);
    expect(JSON.parse(schema.stdout).$id).toBe('offer.schema.json');
  });
});
