// What a command may touch of the outside world, passed in so tests run the real CLI in-process.
export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stdin and stdout are a terminal (confirmation prompts, colours) */
  isTTY: boolean;
  /** asks a yes/no question on the terminal */
  ask?(question: string): Promise<string>;
}

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
