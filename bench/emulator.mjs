// The benchmark's emulator, in a process of its own (bench/run.ts forks it): a server does not share its heap or
// its thread with the client that measures it. Talks to the parent over IPC: {url} once started; on {stats} it
// answers its request counts, on {latency} it changes the latency (it starts without, for the warm-up), on {close}
// it stops.
import { readFileSync } from 'node:fs';
import { startEmulator } from '../dist/emulator/server.js';

const [seedFile] = process.argv.slice(2);
const emu = await startEmulator({ port: 0, seed: { text: readFileSync(seedFile, 'utf8'), file: seedFile }, latencyMs: 0 });
process.on('message', async (m) => {
  if (m.stats) process.send({ stats: { reads: emu.stats.reads, writes: emu.stats.writes } });
  if (m.latency !== undefined) {
    emu.setLatency(m.latency);
    process.send({ ok: true });
  }
  if (m.close) {
    await emu.close();
    process.exit(0);
  }
});
process.send({ url: emu.url });
