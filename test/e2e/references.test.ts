// Every unescaped `${...}` in a document is a known form (${var.NAME}, ${env.NAME}, ${Kind/name.id}); anything else
// is a located error with a did-you-mean, never text sent as it stands. `$${` is a literal `${` (issue 29 item 1).
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

const event = 'kind: Event\nname: cup-final\nid: evt_1\nspec: {}\n---\n';
const offerWith = (value: string) =>
  `${event}kind: Offer\nname: o\nspec:\n  project_id: p\n  target: { event_ids: ["${value}"] }\n  name: x\n`;
const nameWith = (value: string) => `${event}kind: Offer\nname: o\nspec:\n  project_id: p\n  name: "${value}"\n`;

const refused: Array<[string, string, RegExp]> = [
  [
    'a misspelt .id',
    offerWith('${Event/cup-final.idd}'),
    /^a\.yaml:10:\d+: malformed reference \$\{Event\/cup-final\.idd\}: a \$\{\.\.\.\} is \$\{var\.NAME\}, \$\{env\.NAME\} or \$\{Kind\/name\.id\} \(write \$\$\{ for a literal \$\{\); did you mean \$\{Event\/cup-final\.id\}\?/m,
  ],
  [
    'no .id',
    offerWith('${Event/cup-final}'),
    /^a\.yaml:10:\d+: malformed reference \$\{Event\/cup-final\}: .*did you mean \$\{Event\/cup-final\.id\}\?/m,
  ],
  [
    'white space inside',
    offerWith('${ Event/cup-final.id }'),
    /^a\.yaml:10:\d+: malformed reference \$\{ Event\/cup-final\.id \}: .*did you mean \$\{Event\/cup-final\.id\}\?/m,
  ],
  [
    'a misspelt scope',
    nameWith('Pass ${vars.season}'),
    /^a\.yaml:10:\d+: malformed reference \$\{vars\.season\}: .*did you mean \$\{var\.season\}\?/m,
  ],
  [
    'something else',
    nameWith('Pass ${season}'),
    /^a\.yaml:10:\d+: malformed reference \$\{season\}: a \$\{\.\.\.\} is .*literal \$\{\)$/m,
  ],
  [
    'a kind spelt in lower case',
    offerWith('${event/cup-final.id}'),
    /^a\.yaml:10:\d+: \$\{event\/cup-final\.id\} refers to event\/cup-final, which no document defines \(did you mean \$\{Event\/cup-final\.id\}\?\)/m,
  ],
  [
    'a misspelt name',
    offerWith('${Event/cup-finale.id}'),
    /refers to Event\/cup-finale, which no document defines \(did you mean \$\{Event\/cup-final\.id\}\?\)/,
  ],
  [
    'an unclosed ${',
    nameWith('Pass ${var.season'),
    /^a\.yaml:10:\d+: unclosed \$\{ at "\$\{var\.season": a \$\{\.\.\.\} ends with \}/m,
  ],
];

describe('references', () => {
  it.each(refused)('%s: a located error, nothing sent', async (_, text, message) => {
    const dir = testdir({ 'a.yaml': text });
    const run = await runCli(['validate', dir], { cwd: dir, env: { TAPEDECK_BASE_URL: 'http://127.0.0.1:9' } });
    expect(run.stderr).toMatch(message);
    expect(run).toMatchObject({ code: 1, stdout: '' });
  });

  it('escaped literals of any shape pass', async () => {
    const dir = testdir({ 'a.yaml': nameWith('Pass $${Event/cup-final.idd} $${season} $${ var.x } $${') });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('escaped literals are sent as their text, never filled in', () => {
  let emu: Emulator | undefined;
  afterEach(() => emu?.close());

  it.each([
    [
      'in the middle of a text, beside a real reference to the same document',
      'Pass $${Offer/x.id} now',
      'Pass ${Offer/x.id} now',
    ],
    ['as the whole value', '$${Offer/x.id}', '${Offer/x.id}'],
  ])('%s', async (_, written, sent) => {
    emu = await emulator({ offers: [{ id: 'off_x', project_id: 'p', name: 'X' }] });
    const docs = [
      { kind: 'Offer', name: 'x', id: 'off_x', spec: { project_id: 'p', name: 'X' } },
      { kind: 'Offer', name: 'new', spec: { project_id: 'p', name: 'New' } },
      {
        kind: 'Offer',
        name: 'o',
        spec: {
          project_id: 'p',
          name: written,
          billing_partner_offer_id: '${Offer/new.id}',
          localized_description: { en: 'of ${Offer/x.id}' },
        },
      },
    ];
    const dir = testdir({ 'a.yaml': docs });
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(apply.code, apply.stderr).toBe(0);
    const offers = [...emu.store.collections.get('offers')!.values()] as Array<Record<string, unknown>>;
    const created = offers.find((o) => o.name === 'New')!;
    expect(offers.find((o) => o.billing_partner_offer_id === created.id)).toMatchObject({
      name: sent,
      localized_description: { en: 'of off_x' },
    });
    const again = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('in a document that references nothing', async () => {
    emu = await emulator({
      offers: [
        { id: 'off_x', project_id: 'p', name: 'X' },
        { id: 'off_o', project_id: 'p', name: 'O' },
      ],
    });
    const docs = [
      { kind: 'Offer', name: 'x', id: 'off_x', spec: { project_id: 'p', name: 'X' } },
      { kind: 'Offer', name: 'o', id: 'off_o', spec: { project_id: 'p', name: 'Pass $${Offer/x.id}' } },
    ];
    const dir = testdir({ 'a.yaml': docs });
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(apply.code, apply.stderr).toBe(0);
    expect(emu.store.collections.get('offers')!.get('off_o')).toMatchObject({ name: 'Pass ${Offer/x.id}' });
  });
});
