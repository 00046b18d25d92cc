import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// npm run test:fast: the pure tables only (test/unit, test/scenarios, the emulator's filter language): no socket, no
// child process, no real server. The files left out below do one of those, or run the CLI over a large generated
// corpus; npm test runs them all.
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/unit/**/*.test.ts', 'test/scenarios/**/*.test.ts', 'test/emulator/filter-{forms,property}.test.ts'],
    exclude: [
      'test/unit/change-fields.test.ts', // a child process
      'test/unit/client-limits.test.ts', // an HTTP server
      'test/unit/engine.test.ts', // a child process
      'test/unit/json-pieces.test.ts', // a FIFO and a child process writing it
      'test/unit/load-fuzz.test.ts', // 1,200 generated inputs, some through the CLI
      '**/node_modules/**',
    ],
    reporters: ['default'],
  },
});
