// The parser's floor for `npm run bench`: every document file of the configuration read with the parser the loader
// uses (js-yaml, with the loader's own schema: src/load/quick-yaml.ts, core-schema.ts) and nothing else: no file walk rules, no checks, no
// positions. With the bare GET loop (bench/bare-loop.mjs) it is the CPU any tool reading these documents and sending
// these requests must spend; the plan's CPU is stated as a ratio to the two. Reports on stderr like bench/measure.mjs.
// Usage: node bench/parse-floor.mjs DIR
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { CORE } from '../dist/load/core-schema.js';
import { reportCost } from './report.mjs';

const dir = process.argv[2];
const started = performance.now();
const cpu0 = process.cpuUsage();
let documents = 0;
for (const name of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n)))
  documents += loadAll(readFileSync(join(dir, name), 'utf8'), undefined, { schema: CORE }).length;
reportCost(started, cpu0, { documents });
