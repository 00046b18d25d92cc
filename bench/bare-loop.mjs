// The transport reference for `npm run bench`: GETs of the given paths and nothing else, at the given concurrency,
// through undici's dispatch, in a cold process like each tapedeck run. What it takes over the latency floor is what
// the two HTTP stacks, the kernel and this machine at this moment cost per round trip; tapedeck's plan cannot do
// better, so the gap between the two is tapedeck's own. Reports on stderr like bench/measure.mjs.
// Usage: node bench/bare-loop.mjs PATHS_FILE COUNT --base-url URL --concurrency C
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { reportCost } from './report.mjs';

const [pathsFile, count] = process.argv.slice(2);
const option = (name) => process.argv[process.argv.indexOf(name) + 1];
const concurrency = Number(option('--concurrency'));
const paths = JSON.parse(readFileSync(pathsFile, 'utf8'));
const pool = new Pool(option('--base-url'), { connections: concurrency, pipelining: 1 });
const headers = { authorization: `Bearer ${process.env.TAPEDECK_TOKEN}`, accept: 'application/json' };
const get = (path) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    pool.dispatch(
      { path, method: 'GET', headers },
      {
        onRequestStart() {},
        onResponseStart() {},
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        },
        onResponseError(_c, err) {
          reject(err);
        },
      },
    );
  });

const started = performance.now();
const cpu0 = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < Number(count)) await get(paths[next++ % paths.length]);
  }),
);
reportCost(started, cpu0, {});
await pool.close();
