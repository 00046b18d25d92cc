import { fileClock } from './clock.js';
import { main } from '../../src/cli/main.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/server.js';

export type Seed = Record<string, unknown[]>;

/** The real emulator, in-process on a free loopback port, seeded from an inline object. */
export async function emulator(seed: Seed = {}, opts: Omit<EmulatorOptions, 'seed'> = {}): Promise<Emulator> {
  return startEmulator({
    port: 0,
    clock: fileClock(),
    ...opts,
    seed: { text: JSON.stringify(seed), file: 'seed.json' },
  });
}

/** A raw HTTP call to the emulator, for its own tests. */
export async function call(emu: Emulator, method: string, path: string, body?: unknown, token = 'dev-token') {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json, headers: res.headers };
}

/** `tapedeck emulator ARGS` run in-process until stopped: its URL once it listens, and `stop` for its exit code. */
export async function emulatorCommand(
  args: string[],
  cwd: string,
): Promise<{ url: string; stop: () => Promise<number> }> {
  let stop!: () => void;
  const stopped = new Promise<void>((r) => {
    stop = r;
  });
  let out = '';
  const running = main(
    ['emulator', ...args],
    {
      out: (t) => {
        out += t;
      },
      err: () => {},
      env: {},
      cwd,
      isTTY: false,
    },
    stopped,
  );
  for (let i = 0; i < 100 && !out; i++) await new Promise((r) => setTimeout(r, 10));
  const url = /listening on (\S+)/.exec(out)![1];
  return {
    url,
    stop: () => {
      stop();
      return running;
    },
  };
}
