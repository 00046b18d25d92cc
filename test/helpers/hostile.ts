import { rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { testdir } from './cli.js';
import { emulator } from './emulator.js';

/** Answers one request itself (returns true), or leaves it to the upstream emulator (returns false). */
export type Misbehaviour = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * A loopback server in front of the emulator that misbehaves on the requests `answer` takes and forwards the rest
 * untouched. `hits` counts the requests it answered itself.
 */
export async function hostileServer(upstream: string | undefined, answer: Misbehaviour) {
  let hits = 0;
  const server = createServer((req, res) => {
    if (answer(req, res)) return void hits++;
    if (!upstream) return void res.writeHead(404).end('{}');
    const out = request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type HostileServer = Awaited<ReturnType<typeof hostileServer>>;

/**
 * The set-up of the tests that put a hostile server in front of the emulator: what a test starts or makes through
 * it is gone after the test (servers and emulators closed, the last started first, so a server before the emulator
 * behind it; the directories removed).
 */
export function hostilePerTest() {
  const started: { close(): Promise<void> }[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const s of started.splice(0).reverse()) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const keep = <T extends { close(): Promise<void> }>(s: T) => (started.push(s), s);
  return {
    /** the real emulator, in-process (helpers/emulator.ts) */
    emulator: async (...args: Parameters<typeof emulator>): Promise<Emulator> => keep(await emulator(...args)),
    /** a hostile server (above) in front of `upstream` */
    server: async (...args: Parameters<typeof hostileServer>): Promise<HostileServer> =>
      keep(await hostileServer(...args)),
    /** a directory holding `files` (helpers/cli.ts testdir) */
    dir: (files: Parameters<typeof testdir>[0]): string => {
      const d = testdir(files);
      dirs.push(d);
      return d;
    },
    /** the directories made in this test so far */
    dirs: (): readonly string[] => dirs,
  };
}

/** The forms a hostile server may echo a bearer token in; none of them may reach any output. */
export function tokenForms(token: string): string[] {
  const header = `Bearer ${token}`;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const b64url = (s: string) => Buffer.from(s).toString('base64url');
  return [
    token,
    token.toUpperCase(),
    encodeURIComponent(token),
    b64(token),
    b64(header),
    b64url(token),
    b64url(header),
  ];
}

/** `{{name}}` placeholders in a case's strings, filled from the request that the server answers. */
export function fillPlaceholders(v: unknown, req: IncomingMessage): unknown {
  const auth = String(req.headers.authorization ?? '');
  const token = auth.replace(/^Bearer /, '');
  const values: Record<string, string> = {
    authorization: auth,
    token,
    TOKEN: token.toUpperCase(),
    base64: Buffer.from(auth).toString('base64'),
    base64url: Buffer.from(auth).toString('base64url'),
    urlencoded: encodeURIComponent(token),
    long: 'x'.repeat(100_000),
  };
  if (typeof v === 'string') return v.replace(/\{\{(\w+)\}\}/g, (all, name: string) => values[name] ?? all);
  if (Array.isArray(v)) return v.map((x) => fillPlaceholders(x, req));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fillPlaceholders(x, req)]));
  return v;
}

/** Characters that break a line, or move or hide text (controls but the newline, line and paragraph separators,
 *  bidi marks and overrides, zero-width ones): no output may print one raw, whatever a server or a document holds. */
export const HIDDEN_CHARACTERS =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * Every spelling of a secret an output could carry it in, in any letter case: as it is, JSON-escaped,
 * URL-encoded, base64, with unprintable characters as \uXXXX escapes (one-line text), with HTML entities (Markdown)
 * and with Markdown's backslashes. None may reach any output.
 */
export function secretSpellings(secret: string): string[] {
  const escaped = (s: string) =>
    s.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, (c) =>
      c === '\n' ? '\\n' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  const html = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const forms = [secret, secret.toUpperCase(), secret.toLowerCase()].flatMap((s) => [
    s,
    JSON.stringify(s).slice(1, -1),
    encodeURIComponent(s),
    Buffer.from(s).toString('base64'),
    escaped(s),
    escaped(JSON.stringify(s).slice(1, -1)),
    html(escaped(s)),
    html(escaped(s)).replace(/[\\`*_[\]|~#]/g, '\\$&'),
  ]);
  return [...new Set(forms)];
}
