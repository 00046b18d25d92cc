import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// npm test: every test that runs the CLI in-process. The process-level ones (SIGKILL, the benchmark, the bin) are
// in test/slow/, run by `npm run test:slow` (vitest.slow.config.ts) against the built dist/.
//
// Two projects. The tables (test/unit, test/scenarios, test/emulator) share their worker's modules from one file to
// the next (isolate: false): a fresh module graph per file cost each file about a second of loading src/ again, a
// third of the suite's CPU. They hold no state across files (no module-level mocks or clocks; each emulator closed).
// The end-to-end files keep a graph of their own each: they set the CLI's shared clock (useVirtualClock) and start
// agents, servers and databases whose module state must not reach the next file.
const TABLES = ['test/unit/**/*.test.ts', 'test/scenarios/**/*.test.ts', 'test/emulator/**/*.test.ts'];

/** What both projects take (not `extends: true`: the root's globalSetup would run once more for each project). */
const shared = {
  setupFiles: ['test/helpers/setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    exclude: ['test/slow/**', '**/node_modules/**'],
    ...shared,
    // Each run's own TMPDIR, made once for the run: a test that leaves a temporary directory behind fails the run.
    globalSetup: ['test/helpers/fresh-tmp.ts'],
    // vitest runs one file fewer at a time than there are cores: one at a time on two. These tests spend most of
    // their time waiting on loopback sockets, so two files share two cores well (about 23 s down to 15 s here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The JSON report is what .ci/run reads to print its closing "N passed, M failed" line.
    reporters: ['default', ['json', { outputFile: '.test-results.json' }]],
    projects: [
      { test: { ...shared, name: 'tables', include: TABLES, isolate: false } },
      { test: { ...shared, name: 'e2e', include: ['test/**/*.test.ts'], exclude: [...TABLES, 'test/slow/**'] } },
    ],
  },
});
