// The client under the platform's rate limits (the emulator's --rate-limit): an apply that meets 429s converges with
// every resource written exactly once; it learns the rate from the 429s (the live platform publishes no X-RateLimit
// headers, and tapedeck reads none); --max-rps holds the rate the platform receives under its cap in every second, as
// the emulator's call log shows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busiestSecond } from '../../src/emulator/calls.js';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { VirtualClock } from '../helpers/clock.js';

let emu: Emulator | undefined;
/** the CLI's and the emulator's clock: the waits on the rate buckets cost no real time */
let clock = new VirtualClock();
beforeEach(() => {
  clock = new VirtualClock();
});
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const vods = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `v${i}`, project_id: 'p', name: `Vod ${i}` }));
const vodDocs = (n: number, name = (i: number) => `Vod ${i}`) =>
  Array.from({ length: n }, (_, i) => ({ kind: 'Vod', name: `v${i}`, id: `v${i}`, spec: { name: name(i) } }));
const offerDocs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'Offer',
    name: `o${i}`,
    spec: { project_id: 'p', name: `Offer ${i}`, priority: i },
  }));
const refused = (e: Emulator) => e.calls().filter((c) => c.status === 429);

describe('an apply that meets 429s (a platform that publishes no X-RateLimit headers)', () => {
  it('converges: every resource written once, creates included; the 429s are a first burst, not a storm', async () => {
    // The offers' endpoint takes two requests a second: of the four creates sent together, some are refused whatever
    // the machine's speed (with only the overall limit, a slow machine's requests could stay under it).
    const rateLimits = [
      { prefix: '', rps: 6 },
      { prefix: '/monetization/offers/v1', rps: 2 },
    ];
    emu = await emulator({ vods: vods(2) }, { rateLimits, rateLimitHeaders: false, clock });
    const dir = testdir({ 'offers.yaml': offerDocs(4), 'vods.yaml': vodDocs(2, (i) => `Renamed ${i}`) });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json'], { cwd: dir, clock });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary).toMatchObject({ applied: 6, failed: 0, unknown: 0, skipped: 0 });
    const stored = emu.writes().filter((c) => c.stored);
    // Each create made one offer, each update wrote once: nothing lost, nothing twice.
    expect(stored.filter((c) => c.method === 'POST')).toHaveLength(4);
    expect(new Set(stored.map((c) => c.created ?? c.path)).size).toBe(6);
    expect(
      stored
        .filter((c) => c.method === 'PATCH')
        .map((c) => c.path)
        .sort(),
    ).toEqual(['/streaming/vods/v1/v0', '/streaming/vods/v1/v1']);
    expect(emu.store.collections.get('offers')!.size).toBe(4);
    // Writes were refused on the way (so sent again), but a 429 halves the requests on the wire and pauses them
    // all: fewer refusals than the requests that had to go through.
    expect(refused(emu).some((c) => c.write)).toBe(true);
    expect(refused(emu).length).toBeLessThan(emu.calls().length - refused(emu).length);
  });
});

describe('a platform that publishes no rate limit, past its first burst', () => {
  it('learns the rate from the 429s: few of them, every resource written exactly once', async () => {
    emu = await emulator({ vods: vods(80) }, { rateLimits: [{ prefix: '', rps: 50 }], rateLimitHeaders: false, clock });
    const dir = testdir({ 'vods.yaml': vodDocs(80, (i) => `Renamed ${i}`) });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json', '--concurrency', '16'], {
      cwd: dir,
      clock,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary).toMatchObject({ applied: 80, failed: 0, unknown: 0 });
    const stored = emu.writes().filter((c) => c.stored);
    expect(stored).toHaveLength(80);
    expect(new Set(stored.map((c) => c.path)).size).toBe(80);
    // The first burst's 16 requests on the wire meet the limit together, then the halved window's 8 once more, which
    // measures the rate; after that the 429s are few. (The client before: a round of them each time the window grew
    // back to the limit, 52 of 292.)
    expect(refused(emu).length).toBeLessThan(36);
  });
});

describe('one endpoint limited to 1 request a second, its requests sent together (no headers)', () => {
  // Requests refused together used to wait the same Retry-After and come back together, so all but one were refused
  // again, round after round, until one ran out of retries (exit 1). The endpoint's rate, learnt from its 429s, now
  // spaces them. The 429s left: the first round (all but one of those on the wire), the round that measures the rate
  // (at most the halved window), and two for a loaded machine's late timer.
  const limited = (prefix: string) => ({ rateLimits: [{ prefix, rps: 1 }], rateLimitHeaders: false });

  it('apply: every create made exactly once, exit 0, a bounded number of 429s', async () => {
    emu = await emulator({}, { ...limited('/monetization/offers/v1'), clock });
    const dir = testdir({ 'offers.yaml': offerDocs(4) });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--json', '--concurrency', '4'], {
      cwd: dir,
      clock,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary).toMatchObject({ applied: 4, failed: 0, unknown: 0 });
    const creates = emu.writes().filter((c) => c.stored && c.method === 'POST');
    expect(creates).toHaveLength(4);
    expect(new Set(creates.map((c) => c.created)).size).toBe(4);
    expect(emu.store.collections.get('offers')!.size).toBe(4);
    // Before: 16 429s for the 10 requests served (one read back on its 5th and last attempt).
    expect(refused(emu).length).toBeLessThanOrEqual(3 + 2 + 2);
  });

  it('plan: every document read once, exit 0, a bounded number of 429s', async () => {
    emu = await emulator({ vods: vods(6) }, { ...limited('/streaming/vods/v1'), clock });
    const dir = testdir({ 'vods.yaml': vodDocs(6) });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json', '--concurrency', '6'], { cwd: dir, clock });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).summary).toMatchObject({ noop: 6 });
    const served = emu.calls().filter((c) => c.status === 200);
    expect(served.map((c) => c.path).sort()).toEqual(vods(6).map((v) => `/streaming/vods/v1/${v.id}`));
    // Before: exit 1, a read refused 5 times (13 429s).
    expect(refused(emu).length).toBeLessThanOrEqual(5 + 3 + 2);
  });
});

describe("the run's --deadline", () => {
  it('refuses the requests still waiting for their turn: they are never sent', async () => {
    // One request a second (--max-rps 1 counts a request until a second after its answer): the second waits past
    // the deadline.
    emu = await emulator({ vods: vods(3) }, { clock });
    const dir = testdir({ 'vods.yaml': vodDocs(3) });
    const run = await runCli(
      ['plan', ...against(emu.url, dir), '--deadline', '1', '--concurrency', '1', '--max-rps', '1'],
      { cwd: dir, clock },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the run passed its --deadline; no new request was started/);
    expect(emu.calls().map((c) => c.status)).toEqual([200]);
  });
});

describe('--max-rps', () => {
  it("no second of the platform's log holds more than N requests", async () => {
    emu = await emulator({ vods: vods(40) }, { clock });
    const dir = testdir({ 'vods.yaml': vodDocs(40) });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json', '--max-rps', '20'], { cwd: dir, clock });
    expect(run.code).toBe(0);
    expect(emu.calls()).toHaveLength(40);
    expect(busiestSecond(emu.calls())).toBeLessThanOrEqual(20);
  });

  it("tapedeck.yaml's defaults.max_rps caps a run that gives no flag; the flag overrides it", async () => {
    emu = await emulator({ vods: vods(24) }, { clock });
    const dir = testdir({ 'vods.yaml': vodDocs(24), 'tapedeck.yaml': 'version: 1\ndefaults: { max_rps: 10 }\n' });
    expect((await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir, clock })).code).toBe(0);
    expect(emu.calls()).toHaveLength(24);
    expect(busiestSecond(emu.calls())).toBeLessThanOrEqual(10);
    const before = emu.calls().length;
    expect(
      (await runCli(['plan', ...against(emu.url, dir), '--json', '--max-rps', '1000'], { cwd: dir, clock })).code,
    ).toBe(0);
    // Unpaced, the 24 reads of the second plan fall in one second.
    expect(busiestSecond(emu.calls().slice(before))).toBe(24);
  });

  it.each([['abc'], ['0'], ['-1'], ['1.5']])('--max-rps %s is refused, nothing sent', async (value) => {
    emu = await emulator({ vods: vods(1) }, { clock });
    const dir = testdir({ 'vods.yaml': vodDocs(1) });
    const run = await runCli(['plan', ...against(emu.url, dir), '--max-rps', value], { cwd: dir, clock });
    expect(run).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: --max-rps must be a whole number of at least 1, not "${value}"\n`,
    });
    expect(emu.calls()).toEqual([]);
  });
});
