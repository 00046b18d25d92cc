// Runs one tapedeck command (the built CLI, in this process) and reports what it cost: wall time, CPU time and
// peak RSS of this process alone, as one JSON line on stderr. Used by bench/run.ts.
import { tuneEngine } from '../dist/run/engine.js';
import { main } from '../dist/cli/main.js';
import { processIo } from '../dist/cli/io.js';
import { reportCost } from './report.mjs';

// As bin.js does before it runs a command.
tuneEngine();
// The command's modules are loaded before the clock starts, as they were when main.js imported them statically:
// these rows time the run; start-up has rows of its own (bench/startup.ts).
const command = process.argv[2];
if (['validate', 'plan', 'apply'].includes(command)) await import(`../dist/cli/commands/${command}.js`);

const started = performance.now();
const cpu0 = process.cpuUsage();
let out = 0;
const io = {
  ...processIo(),
  out: (t) => {
    out += t.length;
  },
  isTTY: false,
};
const code = await main(process.argv.slice(2), io);
reportCost(started, cpu0, { code, stdout_bytes: out });
process.exitCode = code;
