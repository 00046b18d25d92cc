// Every unescaped `${...}` in a document is a known form (${var.NAME}, ${env.NAME}, ${Kind/name.id}); anything else
// is a located error with a did-you-mean, never text sent as it stands. `$${` is a literal `${` (issue 29 item 1).
import { describe, expect, it } from 'vitest';
import { runCli, testdir } from '../helpers/cli.js';

const event = 'kind: Event\nname: cup-final\nid: evt_1\nspec: {}\n---\n';
const offerWith = (value: string) => `${event}kind: Offer\nname: o\nspec:\n  project_id: p\n  target: { event_ids: ["${value}"] }\n  name: x\n`;
const nameWith = (value: string) => `${event}kind: Offer\nname: o\nspec:\n  project_id: p\n  name: "${value}"\n`;

const refused: Array<[string, string, RegExp]> = [
  ['a misspelt .id', offerWith('${Event/cup-final.idd}'),
    /^a\.yaml:10:\d+: malformed reference \$\{Event\/cup-final\.idd\}: a \$\{\.\.\.\} is \$\{var\.NAME\}, \$\{env\.NAME\} or \$\{Kind\/name\.id\} \(write \$\$\{ for a literal \$\{\); did you mean \$\{Event\/cup-final\.id\}\?/m],
  ['no .id', offerWith('${Event/cup-final}'), /^a\.yaml:10:\d+: malformed reference \$\{Event\/cup-final\}: .*did you mean \$\{Event\/cup-final\.id\}\?/m],
  ['white space inside', offerWith('${ Event/cup-final.id }'), /^a\.yaml:10:\d+: malformed reference \$\{ Event\/cup-final\.id \}: .*did you mean \$\{Event\/cup-final\.id\}\?/m],
  ['a misspelt scope', nameWith('Pass ${vars.season}'), /^a\.yaml:10:\d+: malformed reference \$\{vars\.season\}: .*did you mean \$\{var\.season\}\?/m],
  ['something else', nameWith('Pass ${season}'), /^a\.yaml:10:\d+: malformed reference \$\{season\}: a \$\{\.\.\.\} is .*literal \$\{\)$/m],
  ['a kind spelt in lower case', offerWith('${event/cup-final.id}'),
    /^a\.yaml:10:\d+: \$\{event\/cup-final\.id\} refers to event\/cup-final, which no document defines \(did you mean \$\{Event\/cup-final\.id\}\?\)/m],
  ['a misspelt name', offerWith('${Event/cup-finale.id}'), /refers to Event\/cup-finale, which no document defines \(did you mean \$\{Event\/cup-final\.id\}\?\)/],
  ['an unclosed ${', nameWith('Pass ${var.season'), /^a\.yaml:10:\d+: unclosed \$\{ at "\$\{var\.season": a \$\{\.\.\.\} ends with \}/m],
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
