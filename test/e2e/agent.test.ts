// `tapedeck agent` in-process against a real git repository (a bare one made with the system's git), the real
// emulator and a state file: commits applied as they are pushed, drift reported or corrected, a bad commit kept
// out, a stop mid-apply. Its HTTP endpoints and start-up refusals are in agent-service.test.ts; the database
// state's several agents (a leader SIGKILLed) are in test/slow/agent-ha.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { agentsPerTest, offer, offers, titles, until } from '../helpers/agent.js';
import { call, emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
const { agent } = agentsPerTest(
  () => emu,
  () => {
    emu = undefined;
  },
);

describe('tapedeck agent', () => {
  it('applies each pushed commit once, with --auto-apply; the status names the commit', async () => {
    emu = await emulator();
    const repo = testRepo();
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const cwd = tempDir();
    // Only the first run full: at 200 ms a fast machine reaches run 13 (full, by default) before the second push.
    const a = await agent(repo.bare, cwd, '--auto-apply', '--full-every', '1000');
    await until('offer A', () => titles(emu!).includes('A'));
    const second = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    // `commit` names the commit being reconciled from the start of its run (and `last_run` is then the run before):
    // a finished run of the new commit is the one its `last_plan` names.
    const status = await until('a finished run of the new commit', async () => {
      const s = await a.status();
      return s.last_plan?.commit === second && s.last_run?.result === 'success' && s;
    });
    expect(status).toMatchObject({
      role: 'leader',
      environment: 'default',
      auto_apply: true,
      commit: second,
      rejected_commit: null,
    });
    expect(titles(emu)).toEqual(['A', 'B']);
    // The first run is full; the next (--full-every 1000) reads only what the commit changed: Offer/a is not read.
    const runs = a.logs().filter((l) => l.msg.startsWith('run '));
    expect(runs[0], a.text()).toMatchObject({ msg: 'run success', refresh: 'full', changes: ['create Offer/a'] });
    // Found among every run's line (whatever its result), so that a failure says which run made it and how.
    const madeB = await until('the run that created Offer/b, logged', () =>
      a.logs().find((l) => l.msg.startsWith('run ') && l.changes?.includes('create Offer/b')),
    );
    expect(madeB, a.text()).toMatchObject({ msg: 'run success', refresh: 'changed', not_read: 1 });
    // Once: the run after it, of the same commit, knows both as made (from the state) and has nothing to change.
    const after = await until('the run after the one that created Offer/b, logged', () =>
      a.logs().find((l) => l.msg.startsWith('run ') && l.run > madeB.run),
    );
    expect(after, a.text()).toMatchObject({ msg: 'run success', commit: second.slice(0, 12), not_read: 2 });
    expect(after.changes, a.text()).toBeUndefined();
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(2);
    expect(existsSync(join(cwd, '.tapedeck/default.state.json'))).toBe(true);
    expect(await a.stop()).toBe(0);
    expect(existsSync(join(cwd, '.tapedeck/default.state.json.lock'))).toBe(false);
  });

  it('reports drift made on the platform without writing; with --auto-apply corrects it', async () => {
    emu = await emulator({ offers: [{ id: 'off_1', project_id: 'p', name: 'Gold' }] });
    const repo = testRepo();
    const commit = repo.push({
      'platform/offers.yaml': [{ kind: 'Offer', name: 'gold', id: 'off_1', spec: { project_id: 'p', name: 'Gold' } }],
    });
    const hook = await receiver();
    // Drift in unchanged documents is seen by full runs only: every second run is one here.
    const reporter = await agent(repo.bare, tempDir(), '--notify', hook.url, '--full-every', '2');
    await until('a first run', async () => (await reporter.status()).last_plan?.summary.noop === 1);
    await call(emu, 'PATCH', '/monetization/offers/v1/off_1', {
      offer_id: 'off_1',
      offer: { name: 'Changed by hand' },
      update_mask: 'name',
    });
    const drift = await until('the drift reported', async () => {
      const s = await reporter.status();
      return s.last_plan?.summary.update === 1 && s;
    });
    // Nothing was applied, so the state records no fields: a changed run reads everything too (not_read 0).
    expect(drift.last_plan).toEqual({
      commit,
      refresh: expect.any(String),
      not_read: 0,
      summary: expect.objectContaining({ update: 1 }),
      changes: [{ address: 'Offer/gold', action: 'update' }],
    });
    const told = await until('the drift notification', () => hook.bodies.find((b) => b.event === 'drift'));
    expect(told).toMatchObject({
      environment: 'default',
      commit,
      text: expect.stringMatching(/^tapedeck default: 1 resource differs? from commit .*update Offer\/gold/),
    });
    expect(emu.writes().filter((w) => w.path.startsWith('/monetization'))).toHaveLength(1); // the hand-made change only
    await reporter.stop();
    // The same drift, told once: later runs found it again without another notification.
    expect(hook.bodies.filter((b) => b.event === 'drift')).toHaveLength(1);
    const fixer = await agent(repo.bare, tempDir(), '--auto-apply', '--notify', hook.url, '--full-every', '2');
    await until('the drift corrected', () => offers(emu!)[0].name === 'Gold');
    await until('the applied notification', () => hook.bodies.find((b) => b.event === 'applied'));
    expect((await fixer.status()).last_error).toBeNull();
  });

  it('a commit that fails validation is reported and not applied; the last good one stays until a fix arrives', async () => {
    emu = await emulator();
    const repo = testRepo();
    const good = repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    await until('offer A', () => titles(emu!).includes('A'));
    const bad = repo.push({
      'platform/offers.yaml': 'kind: Offer\nname: b\nspec:\n  project_id: p\n  name: B\n  priority: high\n',
    });
    const status = await until('the bad commit rejected', async () => {
      const s = await a.status();
      return s.rejected_commit === bad && s.last_error && s;
    });
    expect(status.commit).toBe(good);
    expect(status.last_error.message).toMatch(
      new RegExp(
        `^commit ${bad.slice(0, 12)} was not applied: 1 error in the configuration; first: platform/offers.yaml:6:\\d+: `,
      ),
    );
    // The stable code of the error, as the CLI's JSON output gives it (docs/errors.md), in the status and the log.
    expect(status.last_error.code).toBe('E_VALIDATION');
    // Later runs keep reconciling the good commit, and the bad one is checked once.
    await until('a run after the rejection', async () => (await a.status()).last_run?.result === 'success');
    expect(a.logs().filter((l) => l.msg === 'run invalid')).toEqual([
      expect.objectContaining({ error_code: 'E_VALIDATION' }),
    ]);
    expect(titles(emu)).toEqual(['A']);
    const fixed = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] });
    await until('offer B', () => titles(emu!).includes('B'));
    expect(await a.status()).toMatchObject({ commit: fixed, rejected_commit: null });
  });

  it('a commit whose rule does not compile is rejected as validate rejects it; drift against the good one is still corrected', async () => {
    emu = await emulator();
    const repo = testRepo();
    const good = repo.push({
      'platform/offers.yaml': [offer('a', 'A')],
      'platform/rules/p.yaml': '- name: low\n  expression: change.action != "release"\n',
    });
    const a = await agent(repo.bare, tempDir(), '--auto-apply', '--full-every', '1');
    await until('offer A', () => titles(emu!).includes('A'));
    // `chnage` is no variable: validate reports it at the expression's place.
    const bad = repo.push({
      'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')],
      'platform/rules/p.yaml': '- name: low\n  expression: chnage.action != "release"\n',
    });
    const status = await until('the bad commit rejected', async () => {
      const s = await a.status();
      return s.rejected_commit === bad && s.last_error && s;
    });
    expect(status.commit).toBe(good);
    expect(status.last_error).toMatchObject({ code: 'E_VALIDATION' });
    expect(status.last_error.message).toMatch(
      new RegExp(
        `^commit ${bad.slice(0, 12)} was not applied: 1 error in the configuration; first: platform/rules/p.yaml:2:15: rule low: expression: `,
      ),
    );
    // The last good commit keeps being reconciled: drift made by hand is corrected, Offer/b never made.
    const id = offers(emu).find((o) => o.name === 'A')!.id;
    await call(emu, 'PATCH', `/monetization/offers/v1/${id}`, {
      offer_id: id,
      offer: { name: 'By hand' },
      update_mask: 'name',
    });
    expect(titles(emu)).toEqual(['By hand']);
    await until('the drift corrected', () => titles(emu!).includes('A') && !titles(emu!).includes('By hand'));
    expect(titles(emu)).toEqual(['A']);
    // The run that wrote the correction is counted a success once it ends; the bad commit was checked once.
    await until('the correcting run ended', async () => (await a.status()).last_run?.result === 'success');
    expect(a.logs().filter((l) => l.msg === 'run invalid')).toHaveLength(1);
    // A typo that would switch the rule off (a kind that does not exist) is rejected the same way.
    const typo = repo.push({
      'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')],
      'platform/rules/p.yaml': '- name: low\n  match: { kinds: [Ofer] }\n  expression: change.action != "release"\n',
    });
    const rejected = await until('the typo rejected', async () => {
      const s = await a.status();
      return s.rejected_commit === typo && s.last_error?.message.includes(typo.slice(0, 12)) && s;
    });
    expect(rejected.commit).toBe(good);
    expect(rejected.last_error.message).toMatch(
      /platform\/rules\/p\.yaml:2:20: rule low: match\.kinds: unknown kind Ofer.*did you mean Offer\?/,
    );
    expect(titles(emu)).toEqual(['A']);
  });

  it('a commit whose project file or rules/ is a link out of the checkout is rejected, located; nothing there is read', async () => {
    emu = await emulator();
    const repo = testRepo();
    const good = repo.push({ 'platform/offers.yaml': [offer('a', 'A')] });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    await until('offer A', () => titles(emu!).includes('A'));
    const rejected = async (commit: string) =>
      until('the commit rejected', async () => {
        const s = await a.status();
        // rejected_commit names the commit as soon as its run rejects it; last_error once that run is done.
        return s.rejected_commit === commit && s.last_error?.message.includes(commit.slice(0, 12)) && s;
      });
    const rules = repo.push({ 'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')] }, 'rules', {
      'platform/rules': '/usr',
    });
    const first = await rejected(rules);
    expect(first).toMatchObject({ commit: good, last_error: { code: 'E_VALIDATION' } });
    expect(first.last_error.message).toMatch(
      /was not applied: 1 error in the configuration; first: platform\/rules:1:1: is a symbolic link to a folder outside DIR/,
    );
    const project = repo.push({ 'platform/rules': null }, 'project', { 'platform/tapedeck.yaml': '/etc/passwd' });
    const second = await rejected(project);
    expect(second.commit).toBe(good);
    expect(second.last_error.message).toMatch(/platform\/tapedeck\.yaml:1:1: is a symbolic link to a file outside DIR/);
    expect(JSON.stringify(await a.status())).not.toContain('root:');
    expect(titles(emu)).toEqual(['A']);
  });

  it('a guardrail denial is respected: nothing written, the run reports it; a commit that drops the rule applies', async () => {
    emu = await emulator();
    const repo = testRepo();
    const rule = '- name: no-creates\n  expression: change.action != "create"\n';
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')], 'platform/rules/r.yaml': rule });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    const status = await until('the denial reported', async () => {
      const s = await a.status();
      return s.last_error && s;
    });
    expect(status.last_error.message).toMatch(
      /^1 change denied by guardrail rules, nothing was written: rule no-creates denies Offer\/a \(create\)/,
    );
    expect(status.last_error.code).toBe('E_DENIED');
    expect(emu.writes()).toEqual([]);
    repo.push({ 'platform/offers.yaml': [offer('a', 'A')], 'platform/rules/r.yaml': '[]\n' });
    await until('offer A', () => titles(emu!).includes('A'));
  });

  it('stopping (SIGTERM) mid-apply: the write in flight finishes, no other starts, the state records it, exit 0', async () => {
    emu = await emulator({}, { latencyMs: 40 });
    const repo = testRepo();
    const all = Array.from({ length: 20 }, (_, i) => offer(`o${i}`, `Offer ${i}`));
    repo.push({ 'platform/offers.yaml': all });
    const cwd = tempDir();
    const a = await agent(repo.bare, cwd, '--auto-apply', '--concurrency', '1');
    await until('some creates', () => emu!.stats.writes >= 3);
    expect(await a.stop()).toBe(0);
    const created = offers(emu);
    expect(created.length).toBeGreaterThan(2);
    expect(created.length).toBeLessThan(20);
    const state = JSON.parse(readFileSync(join(cwd, '.tapedeck/default.state.json'), 'utf8'));
    expect(
      Object.values(state.resources)
        .map((e: any) => e.id)
        .sort(),
    ).toEqual(created.map((o) => o.id).sort());
    expect(a.logs().find((l) => l.msg === 'run success')?.applied).toMatchObject({
      applied: created.length,
      skipped: 20 - created.length,
    });
    expect(existsSync(join(cwd, '.tapedeck/default.state.json.lock'))).toBe(false);
    // The next agent makes the rest, and nothing twice.
    await agent(repo.bare, cwd, '--auto-apply');
    await until('every offer', () => offers(emu!).length === 20);
    expect(emu.writes().filter((w) => w.method === 'POST')).toHaveLength(20);
  });
});

/** A local HTTP server that records the JSON bodies posted to it; it answers 500 to the first, to be retried. */
async function receiver(): Promise<{ url: string; bodies: Record<string, any>[] }> {
  const bodies: Record<string, any>[] = [];
  let first = true;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      if (first) {
        first = false;
        res.writeHead(500).end();
        return;
      }
      bodies.push(JSON.parse(text));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  afterEach(() => {
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/T000/B000/XXXX`, bodies };
}
