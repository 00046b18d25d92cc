// The state and its lock, state list/forget, and export round trips on every readable kind.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { acquireLock } from '../../src/state/lock.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const vodSetup = async () => {
  emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
  return testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } } });
};
const statePath = (dir: string) => join(dir, '.tapedeck/default.state.json');

describe('the apply lock', () => {
  it('two concurrent applies to one environment: exactly one writes, the other fails at once naming the holder', async () => {
    const dir = await vodSetup();
    const [a, b] = await Promise.all([
      runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir }),
      runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir }),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 1]);
    const loser = a.code ? a : b;
    expect(loser.stderr).toMatch(
      new RegExp(`is locked by another apply \\(host ${hostname()}, pid ${process.pid}, since \\d{4}-`),
    );
    expect(emu!.stats.writes).toBe(1);
    expect(existsSync(`${statePath(dir)}.lock`)).toBe(false);
  });

  it('--lock-timeout waits for the holder to finish', async () => {
    const dir = await vodSetup();
    const release = await acquireLock(statePath(dir));
    setTimeout(release, 300);
    const run = await runCli(['apply', ...against(emu!.url, dir), '--yes', '--lock-timeout', '5'], { cwd: dir });
    expect(run.code).toBe(0);
  });

  it('a lock left by a dead process on this host is taken over; one from another host is not', async () => {
    const dir = await vodSetup();
    const deadPid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    mkdirSync(join(dir, '.tapedeck'), { recursive: true });
    writeFileSync(
      `${statePath(dir)}.lock`,
      JSON.stringify({ host: 'build-agent-7', pid: deadPid, since: '2026-01-01T00:00:00Z' }),
    );
    const foreign = await runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir });
    expect(foreign.stderr).toMatch(/locked by another apply \(host build-agent-7/);
    writeFileSync(
      `${statePath(dir)}.lock`,
      JSON.stringify({ host: hostname(), pid: deadPid, since: '2026-01-01T00:00:00Z' }),
    );
    const stale = await runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir });
    expect(stale.code).toBe(0);
    expect(existsSync(`${statePath(dir)}.lock`)).toBe(false);
  });
});

describe('state list and forget', () => {
  it('lists what the state knows; forget drops one entry and the next plan finds it unmanaged: import, not create', async () => {
    emu = await emulator();
    const dir = testdir({ 'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: 'O' } } });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    const list = await runCli(['state', 'list', dir], { cwd: dir });
    expect(list.stdout).toMatch(/^Offer\/o\toff_[0-9a-f]+\n$/);
    const json = await runCli(['state', 'list', dir, '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({ 'Offer/o': { kind: 'Offer', id: expect.stringMatching(/^off_/) } });
    const forget = await runCli(['state', 'forget', 'Offer/o', dir], { cwd: dir });
    expect(forget.stdout).toMatch(/^Forgot Offer\/o \(off_/);
    expect(JSON.parse(readFileSync(statePath(dir), 'utf8')).resources).toEqual({});
    const again = await runCli(['state', 'forget', 'Offer/o', dir], { cwd: dir });
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('Offer/o is not in the state') });
    const plan = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/which no state entry manages: adopt it with `tapedeck import Offer\/o off_[0-9a-f]+`/);
  });

  it('a corrupt state file is a clear error, never overwritten', async () => {
    const dir = await vodSetup();
    mkdirSync(join(dir, '.tapedeck'));
    writeFileSync(statePath(dir), '{"format_version": 1, "resources": {');
    const run = await runCli(['apply', ...against(emu!.url, dir), '--yes'], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/state file .* is not valid JSON/) });
    expect(readFileSync(statePath(dir), 'utf8')).toBe('{"format_version": 1, "resources": {');
    expect(emu!.stats.writes).toBe(0);
  });
});

describe('export', () => {
  const seed = {
    policies: [
      { resource_key: 'o1/organization', policy: { bindings: [{ role_id: 'owner', account_ids: ['b', 'a'] }] } },
    ],
    content_types: [
      {
        id: 'ct1',
        project_id: 'p',
        base_type: 'BASE_TYPE_EVENT',
        name: 'Match',
        field_groups: [
          { title: 'T', fields: [{ id: 'f', type: 'FIELD_TYPE_STRING', validations: { length: { max: 10 } } }] },
        ],
      },
    ],
    offers: [
      {
        id: 'off1',
        project_id: 'p',
        name: 'Basic',
        priority: 5,
        offer_prices: [{ price: { currency_code: 'EUR', units: 4 } }],
      },
      { id: 'off2', project_id: 'p', name: 'Basic', offer_prices: [{}] },
    ],
    standing_phases: [
      {
        id: 'sp1',
        project_id: 'p',
        localized_name: { en: 'Season' },
        groups: [{ entries: [{ entity_id: 'e', stats: { w: 1 } }] }],
      },
    ],
    creative_works: [
      { id: 'cw1', project_id: 'p', title: 'Intro', release_time: '2026-01-01T10:00:00+01:00', fields: { a: 1 } },
    ],
    rtmp_ingests: [{ id: 'ing1', project_id: 'p', name: 'Cam', key: 'live_sk_secret', region: 'REGION_EU' }],
    configurations: [
      {
        id: 'cfg1',
        project_id: 'p',
        name: 'HD',
        type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS',
        default: true,
        data: { transcoder_streams: { streams: [{ video_bitrate: 100 }] } },
      },
    ],
    video_protection_rulesets: [
      {
        id: 'vpr1',
        project_id: 'p',
        name: 'Geo',
        drm: { enabled: true },
        geo_restrictions_allow: { country_codes: ['NL'] },
      },
    ],
    action_configurations: [
      {
        annotation_type_id: 'at1',
        configuration: { a: { x: '$b.o' }, b: {} },
        conditions: [{ confidence_threshold: 0.5 }],
      },
    ],
    vods: [{ id: 'vod1', project_id: 'p', name: 'Replay', asset_id: 'a1', state: 'STATE_READY' }],
    banners: [{ id: 'b1', project_id: 'p', name: 'Hero', texts: [{ text: { en: 'Hi' }, is_button: true }] }],
    events: [{ id: 'e1', project_id: 'p', title: 'Final', physical_location: { city: 'A' } }],
  };
  const ids = [
    'Policy=o1/organization',
    'ContentType=ct1',
    'StandingPhase=sp1',
    'RtmpIngest=ing1',
    'ActionConfiguration=at1',
    'Vod=vod1',
    'Banner=b1',
  ];

  it('every readable kind round-trips: export, then plan shows no changes; no secrets, no response-only fields', async () => {
    emu = await emulator(seed);
    const dir = testdir({});
    const out = join(dir, 'platform');
    const run = await runCli(['export', out, '--base-url', emu.url, ...ids.flatMap((i) => ['--id', i])], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^Exported 13 resources into 12 files in platform; recorded them in platform\/.tapedeck\/default.state.json\.\n$/,
    );
    const offers = readFileSync(join(out, 'offer.yaml'), 'utf8');
    expect(offers).toBe(
      'kind: Offer\nname: basic\nid: off1\nspec:\n  project_id: p\n  name: Basic\n  offer_prices:\n    - price:\n        currency_code: EUR\n        units: "4"\n  priority: "5"\n' +
        '---\nkind: Offer\nname: basic-2\nid: off2\nspec:\n  project_id: p\n  name: Basic\n  offer_prices:\n    - {}\n',
    );
    const ingest = readFileSync(join(out, 'rtmp-ingest.yaml'), 'utf8');
    expect(ingest).not.toContain('live_sk_secret');
    expect(ingest).not.toMatch(/connected|last_update_time|key:/);
    const validate = await runCli(['validate', out], { cwd: dir });
    expect(validate.stdout).toBe('13 documents valid.\n');
    const plan = await runCli(['plan', out, '--base-url', emu.url, '--detailed-exitcode'], { cwd: dir });
    expect(plan.stdout).toMatch(/^No changes\. 13 resources up to date\./m);
    expect(plan.code).toBe(0);
    // Exporting again into the exported directory writes nothing: every resource is a document's already.
    const again = await runCli(['export', out, '--base-url', emu.url, '--quiet', ...ids.flatMap((i) => ['--id', i])], {
      cwd: dir,
    });
    expect(again).toMatchObject({
      code: 0,
      stdout: 'Exported 0 resources into 0 files in platform; skipped 13 that documents in platform already manage.\n',
    });
  });

  it('resources named by the state are exported under their addresses', async () => {
    emu = await emulator(seed);
    // The export's directory is the same configuration as the state's (a state belongs to one configuration).
    const project = 'version: 1\nname: replays\n';
    const dir = testdir({
      'a.yaml': { kind: 'Vod', name: 'the-replay', id: 'vod1', spec: { name: 'Replay' } },
      'tapedeck.yaml': project,
    });
    await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    const out = testdir({ 'tapedeck.yaml': project });
    const run = await runCli(['export', out, '--base-url', emu.url, '--state', statePath(dir), '--project', 'p'], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(readFileSync(join(out, 'vod.yaml'), 'utf8')).toMatch(/^kind: Vod\nname: the-replay\nid: vod1\n/);
    expect((await call(emu, 'GET', '/streaming/vods/v1/vod1')).body.vod.name).toBe('Replay');
  });
});

describe('export when a list is refused', () => {
  it('warns, and exports the rest', async () => {
    emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Replay' }] });
    const { faultyProxy } = await import('../helpers/proxy.js');
    const proxy = await faultyProxy(emu.url, (req) =>
      req.url?.startsWith('/cms/events/v1?') ? 'drop_before' : undefined,
    );
    const dir = testdir({});
    const run = await runCli(
      ['export', join(dir, 'out'), '--base-url', proxy.url, '--id', 'Vod=v1', '--retries', '0'],
      { cwd: dir },
    );
    await proxy.close();
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^warning: could not list Event \(GET \/cms\/events\/v1\?page_size=100: connection_failed/m,
    );
    expect(readFileSync(join(dir, 'out/vod.yaml'), 'utf8')).toMatch(/^kind: Vod\n/);
  });
});

describe('export without a token', () => {
  it('fails clearly and leaves no lock behind', async () => {
    const dir = testdir({});
    const run = await runCli(['export', dir, '--base-url', 'http://127.0.0.1:9'], {
      cwd: dir,
      env: { TAPEDECK_TOKEN: '' },
    });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringContaining('no API token') });
    expect(existsSync(`${statePath(dir)}.lock`)).toBe(false);
  });
});
