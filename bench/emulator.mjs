// The benchmark's emulator, in a process of its own (bench/run.ts forks it): a server does not share its heap or
// its thread with the client that measures it. Talks to the parent over IPC: {url} once started; on {stats} it
// answers its request counts, on {latency} it changes the latency (it starts without, for the warm-up), on
// {rateLimits} it sets its rate limits (--rate-limit values; full buckets; with {headers: false} its answers carry no
// X-RateLimit-* headers, as the live platform's) and forgets the calls so far, on
// {busiest} it answers the most calls that arrived in any one second since, on {split} the same for the calls
// whose path holds a string and the others apart (the fleet rows: bench/fleet.ts), on {close} it stops.
import { readFileSync } from 'node:fs';
import { busiestSecond } from '../dist/emulator/calls.js';
import { parseRateRules } from '../dist/emulator/rate-limit.js';
import { startEmulator } from '../dist/emulator/server.js';

const [seedFile] = process.argv.slice(2);
// The server reads rateLimitHeaders from its options at each request: the no-header row changes it here.
const options = {
  port: 0,
  seed: { text: readFileSync(seedFile, 'utf8'), file: seedFile },
  latencyMs: 0,
  callLogSize: 200_000,
  rateLimitHeaders: true,
};
const emu = await startEmulator(options);
process.on('message', async (m) => {
  if (m.stats)
    process.send({ stats: { reads: emu.stats.reads, writes: emu.stats.writes, limited: emu.stats.limited } });
  if (m.latency !== undefined) {
    emu.setLatency(m.latency);
    process.send({ ok: true });
  }
  if (m.rateLimits) {
    emu.setRateLimits(parseRateRules(m.rateLimits));
    options.rateLimitHeaders = m.headers !== false;
    emu.clearCalls();
    process.send({ ok: true });
  }
  if (m.busiest) process.send({ busiest: busiestSecond(emu.calls()), dropped: emu.callLog.dropped });
  // The calls since the last {rateLimits}, split by whether their path holds `m.split` (another client's), each part's
  // busiest second, count and 429s.
  if (m.split !== undefined) {
    const part = (calls) => ({
      busiest: busiestSecond(calls),
      calls: calls.length,
      refused: calls.filter((c) => c.status === 429).length,
    });
    const calls = emu.calls();
    process.send({
      matching: part(calls.filter((c) => c.path.includes(m.split))),
      others: part(calls.filter((c) => !c.path.includes(m.split))),
      dropped: emu.callLog.dropped,
    });
  }
  if (m.close) {
    await emu.close();
    process.exit(0);
  }
});
process.send({ url: emu.url });
