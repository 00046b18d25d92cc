import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The JSON report is what .ci/run reads to print its closing "N passed, M failed" line.
    reporters: ['default', ['json', { outputFile: '.test-results.json' }]],
  },
});
