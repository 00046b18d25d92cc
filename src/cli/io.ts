import type { Io } from '../types.js';

export type { Io };

// The real process's outside world.
export function processIo(): Io {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
    isTTY: !!process.stdin.isTTY && !!process.stdout.isTTY,
    ask: async (q) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await rl.question(q);
      } finally {
        rl.close();
      }
    },
  };
}
