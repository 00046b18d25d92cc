// Every network failure mode has a defined outcome: refused token, timeout, reset, 429/5xx retried, partial apply.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';
import { faultyProxy } from '../helpers/proxy.js';
import { useVirtualClock } from '../helpers/clock.js';

// Retry waits, Retry-After pauses and rate buckets on the CLI's and the emulator's shared virtual clock.
useVirtualClock();

let emu: Emulator | undefined;
let raw: Server | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  raw?.closeAllConnections();
  await new Promise((r) => (raw ? raw.close(r) : r(undefined)));
  raw = undefined;
});

const vodDir = () => testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
const vodSeed = { vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] };

/** A loopback server that misbehaves in one given way, to test the client against it. */
async function misbehaving(handler: Parameters<typeof createServer>[1]): Promise<string> {
  raw = createServer(handler);
  await new Promise<void>((r) => raw!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
}

describe('reads', () => {
  it('a refused token is named as such and never echoed', async () => {
    emu = await emulator(vodSeed);
    const dir = vodDir();
    const run = await runCli(['plan', ...against(emu.url, dir)], {
      cwd: dir,
      env: { TAPEDECK_TOKEN: 'sekrit-token-value' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: the platform at ${emu.url}/ refused the token from TAPEDECK_TOKEN (401 unauthenticated). Is it a token for this platform, and still valid?\n`,
    );
    expect(run.stdout + run.stderr).not.toContain('sekrit-token-value');
  });

  it('no token at all is a clear error before any request', async () => {
    emu = await emulator(vodSeed);
    const dir = vodDir();
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir, env: { TAPEDECK_TOKEN: '' } });
    expect(run).toMatchObject({
      code: 1,
      stderr: 'error: no API token: set TAPEDECK_TOKEN or pass --token-file FILE\n',
    });
    expect(emu.stats.reads).toBe(0);
  });

  it('the token can come from --token-file', async () => {
    emu = await emulator(vodSeed, { tokens: ['from-file'] });
    const dir = testdir({
      'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'Old' } },
      '.secrets/token': 'from-file\n',
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--token-file', '.secrets/token'], {
      cwd: dir,
      env: { TAPEDECK_TOKEN: '' },
    });
    expect(run.code).toBe(0);
  });

  it('a missing resource named by id is an error naming it', async () => {
    emu = await emulator();
    const dir = vodDir();
    const run = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Vod\/v: GET \/streaming\/vods\/v1\/v1: 404 not_found: Vod v1 not found/);
  });

  it('429 and 503 are retried (honouring Retry-After) until the plan succeeds', async () => {
    const vods = Array.from({ length: 10 }, (_, i) => ({ id: `x${i}`, project_id: 'p', name: 'Old' }));
    emu = await emulator({ vods }, { faultRate: 0.5, faultSeed: 7, retryAfter: 0 });
    const dir = testdir(
      Object.fromEntries(
        vods.map((v, i) => [`v${i}.yaml`, { kind: 'Vod', name: `v${i}`, id: v.id, spec: { name: 'Old' } }]),
      ),
    );
    const run = await runCli(['plan', ...against(emu.url, dir), '--retries', '8'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No changes. 10 resources up to date.');
    expect(Object.values(emu.stats.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('a server that never answers times out, after the configured retries', async () => {
    let hits = 0;
    const url = await misbehaving(() => {
      hits++;
    });
    const dir = vodDir();
    const run = await runCli(['plan', ...against(url, dir), '--timeout', '1', '--retries', '1'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: the platform at ${url}/ did not answer GET /streaming/vods/v1/v1 (no response within 1000 ms). Is it up, and not overloaded? --timeout S waits longer\n`,
    );
    expect(hits).toBe(2);
  });

  it('a connection reset on every attempt is reported, not thrown', async () => {
    const url = await misbehaving((req) => req.socket.destroy());
    const dir = vodDir();
    const run = await runCli(['plan', ...against(url, dir), '--retries', '2'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: cannot reach the platform at http:\/\/127\.0\.0\.1:\d+\/: the connection closed without an HTTP answer \((UND_ERR_SOCKET|ECONNRESET)\)\. If it is an https server, the scheme is wrong: use https:\/\/\n$/,
    );
  });

  it('an unreachable platform stops the reading: one line names it, whatever the number of documents', async () => {
    const url = await misbehaving(() => {});
    raw!.close(); // the port is now closed: every connection is refused
    raw = undefined;
    const vods = Array.from({ length: 40 }, (_, i) => ({
      kind: 'Vod',
      name: `v${i}`,
      id: `x${i}`,
      spec: { name: 'New' },
    }));
    const dir = testdir({ 'vods.yaml': vods });
    const run = await runCli(['plan', ...against(url, dir), '--retries', '1', '--concurrency', '4'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: cannot reach the platform at ${url}/: the connection was refused (ECONNREFUSED). Is it running, and listening on port ${new URL(url).port}?\n`,
    );
  });

  it('a refused token stops the reading after the first answers', async () => {
    const vods = Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, project_id: 'p', name: 'Old' }));
    emu = await emulator({ vods }, { tokens: ['the-right-one'] });
    const dir = testdir({
      'vods.yaml': vods.map((v, i) => ({ kind: 'Vod', name: `v${i}`, id: v.id, spec: { name: 'Old' } })),
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--concurrency', '2'], {
      cwd: dir,
      env: { TAPEDECK_TOKEN: 'a-wrong-one' },
    });
    expect(run.code).toBe(1);
    expect(emu.stats.reads).toBeLessThanOrEqual(2);
    expect(run.stderr).toMatch(
      /^error: the platform at \S+ refused the token from TAPEDECK_TOKEN \(401 unauthenticated\)[^\n]*\n$/,
    );
  });

  it('an answer cut off after its headers is retried, then reported as cut off', async () => {
    let hits = 0;
    const url = await misbehaving((req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"name":');
      setTimeout(() => req.socket.destroy(), 5);
    });
    const dir = vodDir();
    const run = await runCli(['plan', ...against(url, dir), '--retries', '1'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: cannot use the platform at \S+: GET \/streaming\/vods\/v1\/v1: connection_failed: the response was cut off/,
    );
    expect(hits).toBe(2);
  });

  it('a 4xx other than 408/429 is not retried', async () => {
    let hits = 0;
    const url = await misbehaving((_, res) => {
      hits++;
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":"invalid_argument","message":"nope"}');
    });
    const dir = vodDir();
    const run = await runCli(['plan', ...against(url, dir)], { cwd: dir });
    expect(run.stderr).toMatch(/400 invalid_argument: nope/);
    expect(hits).toBe(1);
  });

  it('redirects are not followed, so the token stays with the configured host', async () => {
    let elsewhere = 0;
    const other = createServer((_, res) => {
      elsewhere++;
      res.end('{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const url = await misbehaving((_, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${(other.address() as AddressInfo).port}/x` }).end(),
    );
    const dir = vodDir();
    const run = await runCli(['plan', ...against(url, dir)], { cwd: dir });
    other.close();
    expect(run.stderr).toMatch(/redirects are not followed/);
    expect(elsewhere).toBe(0);
  });

  it('plain http to a non-loopback host is refused unless --insecure-http', async () => {
    const dir = vodDir();
    const run = await runCli(['plan', ...against('http://platform.example', dir)], { cwd: dir });
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/plain http: the token would travel unencrypted/),
    });
  });
});

describe('partial apply', () => {
  it('lists every outcome, exits 1, keeps what succeeded, and the next plan shows exactly what is left', async () => {
    emu = await emulator({ ...vodSeed, events: [{ id: 'tpl', project_id: 'p', title: 'T' }] });
    const dir = testdir({
      'a.yaml': [
        { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } },
        // The platform refuses this create, for a reason no plan can foresee (the proxy below answers 400).
        { kind: 'Banner', name: 'broken', spec: { project_id: 'p', name: 'x' } },
        {
          kind: 'Offer',
          name: 'needs-broken',
          spec: { project_id: 'p', billing_partner_offer_id: '${Banner/broken.id}' },
        },
        { kind: 'Offer', name: 'fine', spec: { project_id: 'p', name: 'Fine' } },
      ],
    });
    const refusing = await faultyProxy(emu.url, (req) =>
      req.method === 'POST' && req.url === '/cms/banners/v1' ? { status: 400, forward: false } : undefined,
    );
    const run = await runCli(['apply', ...against(refusing.url, dir), '--yes', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    const byAddress = Object.fromEntries(result.results.map((r: { address: string }) => [r.address, r]));
    expect(byAddress['Vod/v']).toMatchObject({ outcome: 'applied', id: 'v1' });
    expect(byAddress['Offer/fine']).toMatchObject({ outcome: 'applied', id: expect.any(String) });
    expect(byAddress['Banner/broken']).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/: 400 /) });
    expect(byAddress['Offer/needs-broken']).toMatchObject({
      outcome: 'skipped',
      error: 'skipped: Banner/broken was not applied',
    });
    expect(result.summary).toEqual({ applied: 2, failed: 1, skipped: 1, unknown: 0, not_kept: 0, unchanged: 0 });
    expect(run.stderr).toMatch(/error: Banner\/broken: POST \/cms\/banners\/v1: 400 /);
    const state = JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8'));
    expect(Object.keys(state.resources).sort()).toEqual(['Offer/fine', 'Vod/v']);
    const next = await runCli(['plan', ...against(refusing.url, dir), '--json'], { cwd: dir });
    await refusing.close();
    expect(JSON.parse(next.stdout).summary).toEqual({
      create: 2,
      update: 0,
      replace: 0,
      move: 0,
      release: 0,
      restore: 0,
      noop: 2,
    });
    expect((await call(emu, 'GET', '/monetization/offers/v1')).body.offers).toHaveLength(1);
  });
});

describe('writes whose answer is lost', () => {
  it('a policy PUT that took effect but lost its answer is confirmed by reading back, not reported as a conflict', async () => {
    emu = await emulator({ policies: [{ resource_key: 'o/organization', policy: { bindings: [] }, etag: 'v1' }] });
    let puts = 0;
    const proxy = await faultyProxy(emu.url, (req) =>
      req.method === 'PUT' && puts++ === 0 ? 'drop_after' : undefined,
    );
    const dir = testdir({
      'a.yaml': {
        kind: 'Policy',
        name: 'p',
        spec: { resource_key: 'o/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['a'] }] } },
      },
    });
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes', '--json'], { cwd: dir });
    await proxy.close();
    expect(JSON.parse(run.stdout).results[0]).toMatchObject({ address: 'Policy/p', outcome: 'applied' });
    expect(puts).toBe(2);
    expect(run.code).toBe(0);
  });

  it('a PATCH whose answer is lost is retried and converges', async () => {
    emu = await emulator(vodSeed);
    let patches = 0;
    const proxy = await faultyProxy(emu.url, (req) =>
      req.method === 'PATCH' && patches++ < 2 ? 'drop_after' : undefined,
    );
    const dir = vodDir();
    const run = await runCli(['apply', ...against(proxy.url, dir), '--yes'], { cwd: dir });
    await proxy.close();
    expect(run.code).toBe(0);
    expect(patches).toBe(3);
    expect((await call(emu, 'GET', '/streaming/vods/v1/v1')).body.vod.name).toBe('New');
  });
});
