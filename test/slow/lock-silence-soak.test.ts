// The lock's bound as measured: applies of 400 updates (emulator latency 40 ms, concurrency 8) with the default
// bound (3 s), their database connection cut silent (a TCP proxy) after a random number of writes, several rounds.
// Each round: how long after the cut the last write reached the platform, printed for docs/performance.md (no
// timed assertion); asserted: the run stops (exit 1), every change not sent is skipped with the reason, and the
// state is not written.
import { afterAll, expect, it } from 'vitest';
import { seededRandom, type Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { postgresForFile } from '../helpers/postgres.js';
import { faultyProxy } from '../helpers/proxy.js';
import { tcpProxy, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const pg = (await postgresForFile('the lock-silence soak'))!;
const N = 400;
const ROUNDS = 5;

let emu: Emulator | undefined;
let cut: TcpProxy | undefined;
afterAll(async () => {
  await cut?.close();
  await emu?.close();
});

const project = (title: string) => ({
  'o.yaml': Array.from({ length: N }, (_, i) => ({
    kind: 'Offer',
    name: `o${i}`,
    spec: { project_id: 'p', name: `${i} ${title}` },
  })),
  'tapedeck.yaml': 'version: 1\nname: soak\n',
});

it.skipIf(!pg)(
  `${ROUNDS} rounds: the last write after a silent cut, with the default bound`,
  async () => {
    const random = seededRandom(40);
    const url = pg.url('soak');
    emu = await emulator({}, { latencyMs: 40 });
    // One front for every run (a state is bound to the platform's origin), watching the writes of the round's run.
    let onPatch = () => {};
    const front = await faultyProxy(emu.url, (req) => {
      if (req.method === 'PATCH') onPatch();
      return undefined;
    });
    const setup = testdir(project('r0'));
    expect(
      (
        await runCli(['apply', setup, '--base-url', front.url, '--yes'], {
          cwd: setup,
          env: { TAPEDECK_STATE_URL: url },
        })
      ).code,
    ).toBe(0);
    const figures: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      cut = await tcpProxy({ host: '127.0.0.1', port: pg.port });
      const after = 20 + Math.floor(random() * (N / 2));
      let patches = 0;
      let cutAt = 0;
      let last = 0;
      onPatch = () => {
        last = Date.now();
        if (++patches === after) {
          cut!.silence();
          cutAt = Date.now();
        }
      };
      const dir = testdir(project(`r${round}`));
      const run = await runCli(['apply', dir, '--base-url', front.url, '--yes', '--json'], {
        cwd: dir,
        env: { TAPEDECK_STATE_URL: throughProxy(url, cut) },
      });
      onPatch = () => {};
      await cut.close();
      expect(run.code).toBe(1);
      const result = JSON.parse(run.stdout);
      const skipped = result.results.filter((r: { outcome: string }) => r.outcome === 'skipped');
      expect(skipped.length).toBeGreaterThan(0);
      for (const r of skipped) expect(r.error).toMatch(/^not sent: the lock on the state .* was not confirmed/);
      expect(result.summary.applied + skipped.length).toBe(N);
      expect(result.state_error_code).toBe('E_LOCKED');
      figures.push(last - cutAt);
      console.log(
        `round ${round}: cut after ${after} writes; ${patches - after} more reached the platform, the last ${last - cutAt} ms after the cut; ${skipped.length} skipped`,
      );
      // The next round starts from what the platform holds (the state was not written).
      const again = await runCli(['apply', dir, '--base-url', front.url, '--yes'], {
        cwd: dir,
        env: { TAPEDECK_STATE_URL: url },
      });
      expect(again.code, again.stderr).toBe(0);
    }
    console.log(`the last write after the cut: ${figures.join(', ')} ms (bound 3000 ms)`);
    await front.close();
  },
  600_000,
);
