// The CI and pull-request workflow: Markdown for PR comments, drift, progress in CI, and honest partial-failure
// reports. Saved plans are in saved-plans.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { planMarkdown, GITHUB_COMMENT_LIMIT } from '../../src/report/markdown.js';
import type { Plan } from '../../src/types.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { docs, seed } from '../helpers/workflow.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('Markdown for pull requests', () => {
  it('matches the golden file: summary, table, collapsible details, no secrets', async () => {
    emu = await emulator(seed());
    const dir = docs();
    const run = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(run.code).toBe(0);
    // The header names the emulator's port, which each run chooses: the golden file holds PORT.
    await expect(run.stdout.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')).toMatchFileSnapshot(
      '../fixtures/golden/plan.md',
    );
    expect(run.stdout).not.toContain('live_sk_do_not_print');
    expect(run.stdout).not.toContain('dev-token');
  });

  it("past GitHub's comment limit it cuts details, then rows, with a note", () => {
    const changes = Array.from({ length: 3000 }, (_, i) => ({
      address: `Vod/v${i}`,
      kind: 'Vod',
      action: 'update' as const,
      id: `v${i}`,
      update_mask: ['name'],
      request: { method: 'PATCH', path: `/streaming/vods/v1/v${i}`, body: {}, retry: true },
      diff: [{ path: 'name', before: 'x'.repeat(50), after: 'y'.repeat(50) }],
    }));
    const plan: Plan = {
      format_version: 1,
      tapedeck_version: 'test',
      configuration_hash: '',
      environment: { name: 'default', base_url: '' },
      state: { lineage: 'l', serial: 1 },
      changes,
      summary: { create: 0, update: 3000, replace: 0, move: 0, release: 0, restore: 0, noop: 0 },
    };
    const md = planMarkdown(plan);
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md).toMatch(
      /> ✂️ \d+ more rows not shown \(\d+ update\): the comment would pass GitHub's 65,536-character limit/,
    );
    const few = planMarkdown({
      ...plan,
      changes: changes.slice(0, 400),
      summary: { create: 0, update: 400, replace: 0, move: 0, release: 0, restore: 0, noop: 0 },
    });
    expect(few.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(few).toContain('| ✏️ | `Vod/v399` | update | `name` |');
    expect(few).toMatch(/> ✂️ \d+ more resource details not shown/);
  });
});

describe('drift', () => {
  it('plan --json marks managed fields changed outside tapedeck since the last apply', async () => {
    emu = await emulator(seed());
    const dir = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New', asset_id: 'a1' } } });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    await call(emu, 'PATCH', '/streaming/vods/v1/v1', { vod: { name: 'Edited in the UI' }, update_mask: 'name' });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json', '--detailed-exitcode'], { cwd: dir });
    expect(run.code).toBe(2);
    const [change] = JSON.parse(run.stdout).changes;
    expect(change.drift).toEqual([{ path: 'name', before: 'New', after: 'Edited in the UI' }]);
    const text = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(text.stdout).toContain('! name: changed outside tapedeck (last applied "New", now "Edited in the UI")');
  });
});

describe('human output', () => {
  it('CI=true prints plain progress lines on stderr; --quiet prints only the summary', async () => {
    emu = await emulator(seed());
    const dir = docs();
    const ci = await runCli(['plan', ...against(emu.url, dir)], {
      cwd: dir,
      env: { CI: 'true', TAPEDECK_PROGRESS_INTERVAL: '0' },
    });
    expect(ci.stderr).toMatch(
      /^reading 5 resources\.\.\.\n(reading \d\/5 \(\d+ s\)\n)+reading 5\/5 done in \d+\.\d s\n$/,
    );
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes'], {
      cwd: dir,
      env: { CI: 'true', TAPEDECK_PROGRESS_INTERVAL: '0' },
    });
    expect(apply.stderr).toMatch(/applying 4 resources\.\.\.\n[\s\S]*applying 4\/4 done in/);
    const quiet = await runCli(['plan', ...against(emu.url, dir), '--quiet'], { cwd: dir, env: { CI: 'true' } });
    expect(quiet).toMatchObject({ stdout: 'No changes. 5 resources up to date.\n', stderr: '' });
  });

  it('colours only on a terminal, and never with NO_COLOR', async () => {
    emu = await emulator(seed());
    const dir = docs();
    const tty = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir, tty: true });
    expect(tty.stdout).toContain('\x1b[33m  ~ Vod/v (v1) will be updated');
    const noColor = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir, tty: true, env: { NO_COLOR: '1' } });
    expect(noColor.stdout).not.toContain('\x1b[');
    const pipe = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(pipe.stdout).not.toContain('\x1b[');
  });
});

describe('partial failures under injected faults', () => {
  it('every resource is reported with its outcome, and the next runs finish exactly what is left', async () => {
    const vods = Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, project_id: 'p', name: 'Old' }));
    emu = await emulator({ vods }, { faultRate: 0.4, faultSeed: 11, faultOn: 'writes', retryAfter: 0 });
    const dir = testdir(
      Object.fromEntries(
        vods.map((v, i) => [`v${i}.yaml`, { kind: 'Vod', name: `v${i}`, id: v.id, spec: { name: 'New' } }]),
      ),
    );
    const first = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json', '--retries', '0'], { cwd: dir });
    expect(first.code).toBe(1);
    const result = JSON.parse(first.stdout);
    expect(result.results).toHaveLength(30);
    const failed = result.results.filter((r: { outcome: string }) => r.outcome === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    const injected = expect.stringMatching(
      /^PATCH \/streaming\/vods\/v1\/x\d+: (503 unavailable|429 resource_exhausted|connection_failed)/,
    );
    expect(failed.map((r: { error: string }) => r.error)).toEqual(failed.map(() => injected));
    expect(result.summary.applied + result.summary.failed).toBe(30);
    // Applied means applied: each one the result calls applied holds the new name on the platform.
    const applied = result.results.filter((x: { outcome: string }) => x.outcome === 'applied');
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.map((r: { id: string }) => emu!.store.collections.get('vods')!.get(r.id)!.name)).toEqual(
      applied.map(() => 'New'),
    );
    // The next plan shows exactly what is left: the failed ones, no more.
    const next = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    const left = JSON.parse(next.stdout)
      .changes.filter((c: { action: string }) => c.action === 'update')
      .map((c: { address: string }) => c.address)
      .sort();
    const stillOld = [...emu.store.collections.get('vods')!.values()]
      .filter((v) => v.name !== 'New')
      .map((v) => `Vod/v${String(v.id).slice(1)}`)
      .sort();
    expect(left).toEqual(stillOld);
    const md = await runCli(['apply', ...against(emu.url, dir), '--yes', '--format', 'markdown', '--retries', '0'], {
      cwd: dir,
    });
    // The faults are seeded: this run too has failures, and the Markdown report shows them.
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/\| ❌ \| `Vod\/v\d+` \| update \| failed \| `x\d+` \| PATCH/);
    let runs = 2;
    for (let code = md.code; code !== 0 && runs < 10; runs++) {
      code = (await runCli(['apply', ...against(emu.url, dir), '--yes', '--retries', '0'], { cwd: dir })).code;
    }
    expect([...emu.store.collections.get('vods')!.values()].every((v) => v.name === 'New')).toBe(true);
  });
});
