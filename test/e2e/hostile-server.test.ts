// A hostile platform: every file in test/fixtures/hostile-server is one way a server can attack tapedeck through
// its answers (echoing the token in any form, forging output lines, flooding it). The real CLI runs against it in
// every output format; no output, saved plan or state may hold the token, a control character or an endless line.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { against, runCli, type CliRun } from '../helpers/cli.js';
import { fillPlaceholders, hostilePerTest, tokenForms } from '../helpers/hostile.js';

const TOKEN = 'tok_3f9a8b7c+6d5e/4f3a=2b1c';
const corpus = resolve(import.meta.dirname, '../fixtures/hostile-server');
const cases = readdirSync(corpus)
  .filter((f) => f.endsWith('.json'))
  .sort();

interface ServerCase {
  about: string;
  /** the method the server misbehaves on: GET is met by plan, PATCH and POST by apply */
  on: 'GET' | 'PATCH' | 'POST';
  /** the documents and the emulator's seed (default: one Vod, v1) */
  documents?: object[];
  seed?: Record<string, unknown[]>;
  answer: { status: number; headers?: Record<string, string>; json?: unknown; raw?: string; cut?: boolean };
  exit: number;
  /** what every run's stderr must match */
  stderr?: string;
  /** lines no output may hold (multiline regexes) */
  forbid?: string[];
  /** how many requests the server answers itself per run (a hostile answer is never retried) */
  requests: number;
}

const hostile = hostilePerTest();

const everyFile = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const full = join(dir, f);
    return statSync(full).isDirectory() ? everyFile(full) : [full];
  });

/** No token form, no control character but the newline, no line longer than a capped message could make. */
function expectClean(text: string, where: string) {
  for (const form of tokenForms(TOKEN)) expect(text.toLowerCase(), where).not.toContain(form.toLowerCase());
  expect(text, where).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
  expect(Math.max(...text.split('\n').map((l) => l.length)), where).toBeLessThan(2000);
}

describe('test/fixtures/hostile-server', () => {
  it('holds the cases', () => expect(cases.length).toBeGreaterThanOrEqual(13));

  it.each(cases)('%s', async (file) => {
    const c = JSON.parse(readFileSync(join(corpus, file), 'utf8')) as ServerCase;
    const emu = await hostile.emulator(c.seed ?? { vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, {
      tokens: [TOKEN],
    });
    const server = await hostile.server(emu.url, (req, res) => {
      if (req.method !== c.on) return false;
      const { status, headers, json, raw, cut } = c.answer;
      const body =
        json !== undefined ? JSON.stringify(fillPlaceholders(json, req)) : String(fillPlaceholders(raw ?? '', req));
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json', ...(headers ?? {}) });
      if (cut) res.write(body, () => setTimeout(() => req.socket.destroy(), 20));
      else res.end(body);
      return true;
    });
    const args =
      c.on === 'GET'
        ? [['plan'], ['plan', '--json', '--out', 'plan.json'], ['plan', '--format', 'markdown'], ['plan', '--debug']]
        : [
            ['apply', '--yes'],
            ['apply', '--yes', '--json'],
            ['apply', '--yes', '--format', 'markdown'],
          ];
    const runs: CliRun[] = [];
    for (const [command, ...rest] of args) {
      // Each run starts afresh: what one apply recorded would change what the next one asks.
      const dir = hostile.dir({
        'a.yaml': c.documents ?? [{ kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } }],
      });
      const before = server.hits();
      runs.push(
        await runCli([command, ...against(server.url, dir), ...rest], { cwd: dir, env: { TAPEDECK_TOKEN: TOKEN } }),
      );
      expect(server.hits() - before, `${command} ${rest.join(' ')}`).toBe(c.requests);
    }
    expect(
      runs.map((r) => r.code),
      runs.map((r) => r.stderr).join(''),
    ).toEqual(runs.map(() => c.exit));
    for (const [i, r] of runs.entries()) {
      const name = args[i].join(' ');
      expect(r.stderr, name).not.toMatch(/\n\s+at |internal error/);
      expect(r.stderr, name).toMatch(new RegExp(c.stderr ?? ''));
      for (const f of c.forbid ?? []) expect(r.stdout + r.stderr, name).not.toMatch(new RegExp(f, 'm'));
      expectClean(r.stdout, `${name}: stdout`);
      expectClean(r.stderr, `${name}: stderr`);
    }
    for (const f of hostile.dirs().flatMap(everyFile)) expectClean(readFileSync(f, 'utf8'), f);
  });
});

describe('a server that loops, floods or stalls', () => {
  const vodDoc = () => hostile.dir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });

  it('a list whose next_page_token repeats is stopped at the repeat, with a clear message', async () => {
    const emu = await hostile.emulator({});
    const server = await hostile.server(emu.url, (req, res) => {
      if (!req.url?.startsWith('/monetization/offers/v1?')) return false;
      // Past 50 pages it gives up itself, so that tapedeck before the fix fails this test instead of hanging it.
      const body =
        server.hits() < 50
          ? { offers: [{ id: 'o1', project_id: 'p', name: 'N' }], next_page_token: 'again' }
          : { code: 'invalid_argument', message: 'looped' };
      res.writeHead(server.hits() < 50 ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return true;
    });
    const d = hostile.dir({});
    const run = await runCli(['export', d, '--base-url', server.url, '--project', 'p'], { cwd: d });
    expect(run.stderr).toMatch(
      /warning: could not list Offer \(GET \/monetization\/offers\/v1\?project_id=p&page_size=100&page_token=again: 200 bad_response: the list gave the page token "again" a second time/,
    );
    expect(server.hits()).toBe(2);
  });

  it("an answer that never ends is cut at the run's --deadline: nothing new starts, one clear line", async () => {
    const server = await hostile.server(undefined, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"vod": {'); // and then nothing, ever
      return true;
    });
    const d = vodDoc();
    const run = await runCli(['plan', ...against(server.url, d), '--deadline', '1', '--timeout', '60'], { cwd: d });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^Vod\/v: GET \/streaming\/vods\/v1\/v1: deadline_exceeded: the run passed its --deadline while waiting for the answer$/m,
    );
    expect(server.hits()).toBe(1);
  });

  it('--deadline takes whole seconds', async () => {
    const d = vodDoc();
    const run = await runCli(['plan', ...against('http://127.0.0.1:9', d), '--deadline', 'soon'], { cwd: d });
    expect(run).toMatchObject({
      code: 1,
      stderr: 'error: --deadline takes whole seconds of at least 1 (such as 90, 90s or 2m), not "soon"\n',
    });
  });
});
