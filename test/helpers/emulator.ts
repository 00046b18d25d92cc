import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/server.js';

export type Seed = Record<string, unknown[]>;

/** The real emulator, in-process on a free loopback port, seeded from an inline object. */
export async function emulator(seed: Seed = {}, opts: Omit<EmulatorOptions, 'seed'> = {}): Promise<Emulator> {
  return startEmulator({ port: 0, ...opts, seed: { text: JSON.stringify(seed), file: 'seed.json' } });
}

/** A raw HTTP call to the emulator, for its own tests. */
export async function call(emu: Emulator, method: string, path: string, body?: unknown, token = 'dev-token') {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
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
