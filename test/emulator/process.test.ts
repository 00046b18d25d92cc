// Persistence across a restart, seed and data file errors, fault injection, and the CLI command (latency: latency.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/cli.js';
import { call, emulator, emulatorCommand } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});
const tmp = () => tempDir('tapedeck-emu-');

describe('--data persistence', () => {
  it('a restart keeps every change', async () => {
    const data = join(tmp(), 'store.json');
    emu = await emulator({ offers: [{ id: 'o1', project_id: 'p' }] }, { dataFile: data });
    await call(emu, 'PATCH', '/monetization/offers/v1/o1', { offer: { name: 'Changed' }, update_mask: 'name' });
    const created = await call(emu, 'POST', '/monetization/offers/v1', { project_id: 'p', name: 'New' });
    await call(emu, 'PUT', '/iam/auth/v1/policies/o/organization', { policy: { bindings: [] } });
    await emu.close();
    emu = await startEmulator({ port: 0, dataFile: data, seed: { text: 'offers: []', file: 'ignored.yaml' } });
    expect((await call(emu, 'GET', '/monetization/offers/v1/o1')).body.offer.name).toBe('Changed');
    expect((await call(emu, 'GET', `/monetization/offers/v1/${created.body.offer.id}`)).body.offer.name).toBe('New');
    expect((await call(emu, 'GET', '/iam/auth/v1/policies/o/organization')).status).toBe(200);
    expect(JSON.parse(readFileSync(data, 'utf8')).format_version).toBe(1);
  });

  it('a corrupt data file is a clear error through the CLI', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'store.json'), '{"format_version": 1, "collections": {"offers": [');
    const run = await runCli(['emulator', '--port', '0', '--data', 'store.json'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .*store\.json: the data file is corrupt/);
  });
});

describe('seed errors', () => {
  it.each([
    ['offers: [1', /not valid YAML/],
    ['- a', /must be an object keyed by collection/],
    ['widgets: []', /unknown collection "widgets"/],
    ['offers: {}', /offers must be an array/],
    ['offers: [{name: x}]', /offers\[0\]: needs a string id/],
    ['offers: [{id: o, bogus: 1}]', /offers\[0\]: unknown field bogus/],
  ])('%s', async (text, message) => {
    const dir = tmp();
    writeFileSync(join(dir, 'seed.yaml'), text);
    const run = await runCli(['emulator', '--port', '0', '--seed', 'seed.yaml'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('bad flags are errors, not a server', async () => {
    const dir = tmp();
    expect((await runCli(['emulator', '--fault-rate', '2'], { cwd: dir })).stderr).toMatch(
      /--fault-rate must be a number from 0 to 1/,
    );
    expect((await runCli(['emulator', '--seed', 'missing.yaml'], { cwd: dir })).stderr).toMatch(
      /cannot read seed file missing.yaml: ENOENT/,
    );
  });

  it('a port out of range or a host that cannot be listened on is one line, exit 1, never an internal error', async () => {
    const dir = tmp();
    for (const [args, said] of [
      [['--port', '65536'], /^error: --port must be a whole number from 0 to 65535, not "65536"$/],
      [['--port', '99999'], /^error: --port must be a whole number from 0 to 65535, not "99999"$/],
      [
        ['--port', '0', '--host', 'no-such-host.invalid'],
        /^error: cannot listen on no-such-host\.invalid:0: ENOTFOUND$/,
      ],
      [['--port', '0', '--host', '999.1.1.1'], /^error: cannot listen on 999\.1\.1\.1:0: E[A-Z_]+$/],
    ] as const) {
      const run = await runCli(['emulator', ...args], { cwd: dir });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr.trim()).toMatch(said);
    }
  });
});

describe('the emulator command', () => {
  it('serves until stopped, with the seed and tokens given', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'seed.yaml'), 'vods: [{id: v1, project_id: p, name: Replay}]\n');
    const { url, stop } = await emulatorCommand(['--port', '0', '--seed', 'seed.yaml', '--token', 'abc'], dir);
    const res = await fetch(`${url}/streaming/vods/v1/v1`, { headers: { authorization: 'Bearer abc' } });
    expect((await res.json()).vod.name).toBe('Replay');
    expect(await stop()).toBe(0);
  });
});

describe('fault injection', () => {
  it('fails about the given share of requests, reproducibly with a seed, in all four ways', async () => {
    const outcomes = async () => {
      const e = await emulator(
        { offers: [{ id: 'o1', project_id: 'p' }] },
        { faultRate: 0.5, faultSeed: 42, retryAfter: 7 },
      );
      const seen: string[] = [];
      for (let i = 0; i < 200; i++) {
        try {
          const res = await fetch(`${e.url}/monetization/offers/v1/o1`, {
            headers: { authorization: 'Bearer dev-token', connection: 'close' },
          });
          seen.push(res.status === 429 ? `429:${res.headers.get('retry-after')}` : String(res.status));
          await res.arrayBuffer();
        } catch {
          seen.push('dropped');
        }
      }
      const faults = { ...e.stats.faults };
      await e.close();
      return { seen, faults };
    };
    const a = await outcomes();
    const b = await outcomes();
    expect(a.seen).toEqual(b.seen);
    const failed = a.seen.filter((s) => s !== '200').length;
    expect(failed).toBeGreaterThan(70);
    expect(failed).toBeLessThan(130);
    expect(a.seen).toContain('503');
    expect(a.seen).toContain('429:7');
    expect(a.seen).toContain('dropped');
    expect(Object.values(a.faults).every((n) => n > 0)).toBe(true);
  });

  it('a drop after the write means the write took effect', async () => {
    // Find a seed whose first request is dropped after handling; what the client saw and what was stored are
    // checked once, after the search.
    let found: { client: string; stored: unknown } | undefined;
    for (let seed = 1; seed < 500 && !found; seed++) {
      const e = await emulator({ offers: [{ id: 'o1', project_id: 'p' }] }, { faultRate: 1, faultSeed: seed });
      const client = await fetch(`${e.url}/monetization/offers/v1/o1`, {
        method: 'PATCH',
        headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
        body: JSON.stringify({ offer: { name: 'written' }, update_mask: 'name' }),
      }).then(
        () => 'answered',
        () => 'dropped',
      );
      if (e.stats.faults.drop_after === 1)
        found = { client, stored: e.store.collections.get('offers')!.get('o1')!.name };
      await e.close();
    }
    expect(found).toEqual({ client: 'dropped', stored: 'written' });
  });
});
