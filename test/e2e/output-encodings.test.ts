// Every output format writes text its own way: Markdown cuts a long run of a code span into spans and escapes HTML
// and its own markup, GitHub annotations percent-encode, Mermaid and DOT labels escape quotes. A secret that reached a
// document (the token pasted into a value) must stay masked through each of them, whole or cut.
import { afterEach, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { secretSpellings } from '../helpers/hostile.js';

/** A token with what Markdown, HTML and annotations escape: `_`, `|`, `<`, `>`, `%`. */
const TOKEN = 'tok_pasted|9f8e<7d>6c%5b4a';
let emu: Emulator | undefined;
afterEach(() => emu?.close());

/** The first and last 8 characters of every spelling: a cut secret must not show in part either. */
const parts = (secret: string) => secretSpellings(secret).flatMap((s) => [s.slice(0, 8), s.slice(-8)]);

it.each([0, 5, 10, 20])(
  'a token inside a long value is masked in every format, wherever Markdown cuts the value (%d characters in)',
  async (shift) => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] }, { tokens: [TOKEN] });
    // Markdown cuts a run without spaces every 80 characters, counted from the value's opening quote.
    const name = `https://cdn.example.com/${'a'.repeat(80 - 25 - 6 - shift)}?x=1&t=${TOKEN}`;
    const dir = testdir({ 'a.yaml': [{ kind: 'Vod', name: 'v', id: 'v1', spec: { name } }] });
    const env = { TAPEDECK_TOKEN: TOKEN };
    const runs = [
      ...['text', 'json', 'markdown', 'github'].map((f) => ['plan', ...against(emu!.url, dir), '--format', f]),
      ['graph', ...against(emu.url, dir)],
      ['graph', ...against(emu.url, dir), '--format', 'dot'],
      ['apply', ...against(emu.url, dir), '--yes', '--format', 'markdown'],
    ];
    for (const args of runs) {
      const run = await runCli(args, { cwd: dir, env });
      // apply reads the name back masked (the client masks every answer that holds the token): "not kept", exit 1.
      expect(run.code, run.stderr).toBe(args[0] === 'apply' ? 1 : 0);
      for (const s of parts(TOKEN)) expect(run.stdout + run.stderr, `${args.join(' ')}: ${s}`).not.toContain(s);
    }
  },
);

it.each(['text', 'json', 'markdown', 'github'])(
  'a token in a value a validation message quotes is masked in the %s report',
  async (format) => {
    const dir = testdir({ 'a.yaml': [{ kind: 'Event', name: 'e', id: 'evt_1', spec: { start_time: TOKEN } }] });
    const run = await runCli(['validate', dir, '--format', format], { cwd: dir, env: { TAPEDECK_TOKEN: TOKEN } });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('is not a valid date-time');
    for (const s of parts(TOKEN)) expect(run.stdout + run.stderr, s).not.toContain(s);
  },
);
