import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// npm test: every test that runs the CLI in-process. The process-level ones (SIGKILL, the benchmark, the bin) are
// in test/slow/, run by `npm run test:slow` (vitest.slow.config.ts) against the built dist/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/slow/**', '**/node_modules/**'],
    setupFiles: ['test/helpers/setup.ts'],
    // Each run's own TMPDIR: a test that leaves a temporary directory behind fails the run.
    globalSetup: ['test/helpers/fresh-tmp.ts'],
    // vitest runs one file fewer at a time than there are cores: one at a time on two. These tests spend most of
    // their time waiting on loopback sockets, so two files share two cores well (about 23 s down to 15 s here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A worker runs its files one after another in the same modules: a fresh module graph for each file cost each
    // one src/ loaded again, about half the suite's CPU (docs/testing.md). What a file sets for itself is undone
    // after it (the virtual clock of useVirtualClock, temporary directories, servers, processes, fake timers).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The JSON report is what .ci/run reads to print its closing "N passed, M failed" line.
    reporters: ['default', ['json', { outputFile: '.test-results.json' }]],
  },
});
