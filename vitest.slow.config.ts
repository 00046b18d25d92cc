import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// npm run test:slow (builds first): the process-level tests in test/slow/, each running the built CLI
// (dist/cli/bin.js) as its own process: SIGKILL at random moments, the benchmark's smoke run, the quick start.
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    globalSetup: ['test/helpers/built.ts', 'test/helpers/fresh-tmp.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    // Mostly waiting on child processes: the SIGKILL test runs beside the other two files (see vitest.config.ts).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 240_000,
    hookTimeout: 30_000,
    // .ci/run adds this report's counts to those of .test-results.json for its closing "N passed, M failed" line.
    reporters: ['default', ['json', { outputFile: '.test-results-slow.json' }]],
  },
});
