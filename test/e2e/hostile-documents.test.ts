// Attacks that travel through values: a secret under another name, live strings that look like templates, ids a
// server makes up to bend a later path, and HTML or Markdown in what a pull-request comment shows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { hostilePerTest } from '../helpers/hostile.js';
import { renderGfm, sourceCells, sourceTables } from '../helpers/gfm.js';

const TOKEN = 'tok_8d7c6b5a4f3e2d1c0b9a';
const hostile = hostilePerTest();

describe('secrets', () => {
  it('the token reaching a document under another name is masked in every output format', async () => {
    const emu = await hostile.emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, { tokens: [TOKEN] });
    const d = hostile.dir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: '${env.COPY_OF_IT}' } } });
    const env = { TAPEDECK_TOKEN: TOKEN, COPY_OF_IT: TOKEN };
    for (const format of ['text', 'json', 'markdown']) {
      const run = await runCli(['plan', ...against(emu.url, d), '--format', format], { cwd: d, env });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('(sensitive)');
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
    }
  });

  it('${env.TAPEDECK_TOKEN} is refused where it stands, without the value and without a request', async () => {
    const emu = await hostile.emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, { tokens: [TOKEN] });
    const d = hostile.dir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: '${env.TAPEDECK_TOKEN}' } } });
    const run = await runCli(['apply', ...against(emu.url, d), '--yes'], { cwd: d, env: { TAPEDECK_TOKEN: TOKEN } });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^a\.yaml:\d+:\d+: \$\{env\.TAPEDECK_TOKEN\} is refused/);
    expect(run.stderr).not.toContain(TOKEN);
    expect(emu.stats.reads + emu.stats.writes).toBe(0);
  });
  it('a token variable tapedeck.yaml names (token_env) is refused in a document as TAPEDECK_TOKEN is', async () => {
    const emu = await hostile.emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, { tokens: [TOKEN] });
    const project = {
      version: 1,
      name: 'tokens',
      environments: { prod: { base_url: emu.url, token_env: { plan: 'PROD_READ_TOKEN', apply: 'PROD_WRITE_TOKEN' } } },
    };
    for (const name of ['PROD_READ_TOKEN', 'PROD_WRITE_TOKEN']) {
      const d = hostile.dir({
        'tapedeck.yaml': project,
        'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: `\${env.${name}}` } },
      });
      const env = { PROD_READ_TOKEN: TOKEN, PROD_WRITE_TOKEN: TOKEN };
      const validate = await runCli(['validate', d, '--env', 'prod'], { cwd: d, env });
      expect(validate.code).toBe(1);
      expect(validate.stderr).toMatch(new RegExp(`^a\\.yaml:\\d+:\\d+: \\$\\{env\\.${name}\\} is refused`));
      const apply = await runCli(['apply', d, '--env', 'prod', '--yes'], { cwd: d, env });
      expect(apply.code).toBe(1);
      expect(apply.stderr + apply.stdout).not.toContain(TOKEN);
    }
    expect(emu.stats.reads + emu.stats.writes).toBe(0);
  });

  it('the variable a state URL takes its password from is refused in a document', async () => {
    const project = {
      version: 1,
      name: 'tokens',
      environments: { prod: { state: 'postgres://tapedeck:${env.DB_PASSWORD}@127.0.0.1:9/infra' } },
    };
    const d = hostile.dir({
      'tapedeck.yaml': project,
      'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'db ${env.DB_PASSWORD}' } },
    });
    const validate = await runCli(['validate', d, '--env', 'prod'], { cwd: d, env: { DB_PASSWORD: TOKEN } });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toMatch(/^a\.yaml:\d+:\d+: \$\{env\.DB_PASSWORD\} is refused/);
    expect(validate.stderr).not.toContain(TOKEN);
  });
});

describe('export', () => {
  it('writes live strings that look like templates so they read back as themselves: the next plan has no changes', async () => {
    const names = ['${env.HOME}', 'see ${Offer/x.id}', 'escaped $${var.y} and $${Offer/x.id}', '${var.undefined_one}'];
    const emu = await hostile.emulator({
      offers: [
        ...names.map((name, i) => ({ id: `o${i}`, project_id: 'p', name })),
        { id: 'ox', project_id: 'p', name: 'x' },
      ],
    });
    const d = hostile.dir({});
    const env = { HOME: '/home/someone' };
    const exported = await runCli(['export', d, '--base-url', emu.url, '--project', 'p'], { cwd: d, env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(join(d, 'offer.yaml'), 'utf8')).toContain('$${env.HOME}');
    const plan = await runCli(['plan', ...against(emu.url, d), '--json'], { cwd: d, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      move: 0,
      release: 0,
      restore: 0,
      noop: 5,
    });
  });

  it('writes live names with white space YAML reads as text (no-break space, U+3000, separators, BOM, VT, FF) so they read back as themselves', async () => {
    const odd = ['\u00a0', '\u3000', '\u2028', '\u2029', '\u0085', '\ufeff', '\v', '\f', '\u1680', '\u202f'];
    const names = odd.flatMap((c) => [`Final${c}`, `${c}Final`, `Fi${c}nal`]);
    const emu = await hostile.emulator({ offers: names.map((name, i) => ({ id: `o${i}`, project_id: 'p', name })) });
    const d = hostile.dir({});
    const exported = await runCli(['export', d, '--base-url', emu.url, '--project', 'p'], { cwd: d });
    expect(exported.code, exported.stderr).toBe(0);
    const plan = await runCli(['plan', ...against(emu.url, d), '--json'], { cwd: d });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).summary).toEqual({
      create: 0,
      update: 0,
      replace: 0,
      move: 0,
      release: 0,
      restore: 0,
      noop: names.length,
    });
  });

  it('reads a document the same whether or not its file holds an unrelated block scalar', async () => {
    const emu = await hostile.emulator({
      offers: [
        { id: 'o1', project_id: 'p', name: 'Pass\u00a0' },
        { id: 'o2', project_id: 'p', name: 'Other' },
      ],
    });
    const offer = 'kind: Offer\nname: pass\nid: o1\nspec:\n  project_id: p\n  name: Pass\u00a0\n';
    const other = '---\nkind: Offer\nname: other\nid: o2\nspec:\n  project_id: p\n  name: |-\n    Other\n';
    const plans = [];
    for (const text of [offer, offer + other]) {
      const d = hostile.dir({ 'offers.yaml': text });
      const plan = await runCli(['plan', ...against(emu.url, d), '--json'], { cwd: d });
      expect(plan.code, plan.stderr).toBe(0);
      plans.push(JSON.parse(plan.stdout).summary);
    }
    expect(plans).toEqual([
      { create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 1 },
      { create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 2 },
    ]);
  });
});

describe('paths', () => {
  it('an id a server made up is encoded as one segment when apply fills it into a later path', async () => {
    const emu = await hostile.emulator({ events: [{ id: 'tpl', project_id: 'p', title: 'Template' }] });
    const seen: string[] = [];
    const server = await hostile.server(emu.url, (req, res) => {
      seen.push(req.url ?? '');
      if (req.method !== 'POST' || req.url !== '/cms/events/v1/tpl/duplicate') return false;
      req.resume();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ event: { id: '../../../iam/auth/v1/policies/org', project_id: 'p', title: 'A' } }));
      return true;
    });
    const d = hostile.dir({
      'a.yaml': [
        { kind: 'Event', name: 'a', duplicate_from: 'tpl', spec: { title: 'A' } },
        { kind: 'Event', name: 'b', duplicate_from: '${Event/a.id}', spec: { title: 'B' } },
      ],
    });
    const run = await runCli(['apply', ...against(server.url, d), '--yes', '--json'], { cwd: d });
    const b = JSON.parse(run.stdout).results.find((r: { address: string }) => r.address === 'Event/b');
    expect(b.outcome).toBe('failed');
    // a is read back after its create, and b reads its source (to find itself after a lost answer): both reads
    // name the made-up id as one segment.
    expect([...new Set(seen.filter((u) => u.includes('policies')))]).toEqual([
      '/cms/events/v1/..%2F..%2F..%2Fiam%2Fauth%2Fv1%2Fpolicies%2Forg',
    ]);
    expect(seen.filter((u) => /\/\.\.?(\/|$)/.test(u))).toEqual([]);
  });
});

describe('the pull-request comment', () => {
  it('shows HTML, pipes, backticks and line breaks from documents and servers as text', async () => {
    const hostileId = '<img src=x onerror=alert(1)>';
    const emu = await hostile.emulator({
      vods: [
        { id: hostileId, project_id: 'p', name: 'Old' },
        { id: 'v2', project_id: 'p', name: 'Old' },
      ],
    });
    const server = await hostile.server(emu.url, (req, res) => {
      if (req.method !== 'PATCH' || !req.url?.endsWith('/v2')) return false;
      req.resume();
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({
            code: 'invalid_argument',
            message: '<b>no</b> | `tick` & </details><script>alert(1)</script>',
            details: [],
          }),
        );
      return true;
    });
    const d = hostile.dir({
      'a.yaml': [
        {
          kind: 'Vod',
          name: 'v',
          id: hostileId,
          spec: { name: '</details><script>alert(1)</script> | `x` \n# heading' },
        },
        { kind: 'Vod', name: 'w', id: 'v2', spec: { name: 'fine' } },
      ],
    });
    const plan = await runCli(['plan', ...against(server.url, d), '--format', 'markdown'], { cwd: d });
    const apply = await runCli(['apply', ...against(server.url, d), '--yes', '--format', 'markdown'], { cwd: d });
    expect([plan.code, apply.code]).toEqual([0, 1]);
    expect(apply.stdout).toContain('❌');
    for (const md of [plan.stdout, apply.stdout]) {
      // As GitHub renders it: no element made from a document's or a server's text.
      expect(renderGfm(md)).not.toMatch(/<(img|script|b)\b/i);
      expect(renderGfm(md)).toContain('&lt;/details&gt;&lt;script&gt;');
      expect(md).not.toMatch(/^# heading/m);
      const tables = sourceTables(md);
      expect(tables.length).toBeGreaterThan(0);
      for (const rows of tables) expect(rows.map(sourceCells)).toEqual(rows.map(() => sourceCells(rows[0])));
    }
    expect(plan.stdout).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});
