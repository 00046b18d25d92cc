// The command reference (docs/cli.md) is generated from the commander definitions by `npm run docs`; a flag or
// command added, removed or described anew without regenerating it fails here, naming the command.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliDocPath, cliReference } from '../../scripts/cli-docs.js';
import { root } from '../../scripts/kind-docs.js';

describe('the command reference', () => {
  it(`${cliDocPath} is current`, async () => {
    const committed = readFileSync(join(root, cliDocPath), 'utf8');
    expect(committed, `${cliDocPath} is out of date: run \`npm run docs\` and commit the result`).toBe(
      await cliReference(),
    );
  });

  it('lists every command and subcommand, each with its flags', async () => {
    const doc = await cliReference();
    for (const command of ['validate', 'plan', 'apply', 'state push', 'state migrate', 'agent', 'emulator'])
      expect(doc).toContain(`## tapedeck ${command}\n\n\`\`\`\nUsage: tapedeck ${command} `);
    expect(doc).toMatch(/## tapedeck plan\n[^#]*--detailed-exitcode +exit 2 when there are changes/);
    expect(doc).toMatch(/## tapedeck state push\n[^#]*--force +write it even over a newer serial/);
  });
});
