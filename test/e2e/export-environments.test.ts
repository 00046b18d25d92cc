// export into a directory whose tapedeck.yaml has environments: what ties a resource to the exported environment is
// written as ${var.NAME} (a value the environment already has keeps its name; the others are added to its vars in
// tapedeck.yaml, comments kept), each exported document is marked as that environment's alone, and afterwards
// every environment's plan runs: production's with no changes, staging's leaving the new documents out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emus: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emus.map((e) => e.close()));
  emus = [];
});

it("writes production's own values as variables, marks the documents production's, and every environment plans", async () => {
  const staging = await emulator();
  const production = await emulator({
    offers: [
      {
        id: 'off_partner',
        project_id: 'proj_prod',
        name: 'Partner pass',
        target: { event_ids: ['evt_partner_final'] },
      },
    ],
  });
  emus = [staging, production];
  const project = [
    '# One setup, two environments.',
    'version: 1',
    'environments:',
    '  staging:',
    `    base_url: ${staging.url}`,
    '    vars: { project: proj_staging }',
    '  production:',
    `    base_url: ${production.url}   # the real one`,
    '    vars:',
    '      project: proj_prod',
    '',
  ].join('\n');
  const dir = testdir({ 'tapedeck.yaml': project, 'vods.yaml': [] });
  const exported = await runCli(['export', dir, '--env', 'production', '--project', 'proj_prod'], { cwd: dir });
  expect(exported.stderr).toBe('');
  expect(exported.code).toBe(0);
  expect(exported.stdout).toMatch(
    /each is marked environments: \[production\]; added 1 variable to tapedeck\.yaml \(environments\.production\.vars: event_evt_partner_final\)/,
  );

  const [doc] = parseAllDocuments(readFileSync(join(dir, 'offer.yaml'), 'utf8')).map((d) => d.toJS());
  expect(doc).toEqual({
    kind: 'Offer',
    name: 'partner-pass',
    environments: ['production'],
    spec: expect.objectContaining({
      project_id: '${var.project}',
      target: expect.objectContaining({ event_ids: ['${var.event_evt_partner_final}'] }),
    }),
  });
  const written = readFileSync(join(dir, 'tapedeck.yaml'), 'utf8');
  // Added under production's vars; the comments and staging's entry as they were.
  expect(parse(written).environments).toEqual({
    staging: { base_url: staging.url, vars: { project: 'proj_staging' } },
    production: {
      base_url: production.url,
      vars: { project: 'proj_prod', event_evt_partner_final: 'evt_partner_final' },
    },
  });
  expect(written).toContain('# One setup, two environments.');
  expect(written).toContain('# the real one');

  const prod = await runCli(['plan', dir, '--env', 'production', '--detailed-exitcode'], { cwd: dir });
  expect(prod.stdout).toMatch(/^No changes\./m);
  expect(prod.code).toBe(0);
  const stage = await runCli(['plan', dir, '--env', 'staging', '--detailed-exitcode'], { cwd: dir });
  expect(stage.stderr).toBe('');
  expect(stage.code).toBe(0);
  expect(stage.stdout).toMatch(/^1 document not in staging/m);
  expect(staging.writes()).toHaveLength(0);
});
