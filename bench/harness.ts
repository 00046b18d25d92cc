// The benchmark's parts shared by its rows: the generated configuration and its live state, the emulator in a
// process of its own, and one cold tapedeck process measured (bench/measure.mjs).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { builtinKinds } from '../src/kinds/registry.js';
import { readPath } from '../src/kinds/paths.js';

const root = resolve(import.meta.dirname, '..');

export type Doc = { kind: string; name: string; id?: string; spec: Record<string, unknown> };
export const KINDS = [
  'Vod',
  'Banner',
  'RtmpIngest',
  'Offer',
  'CreativeWork',
  'Event',
  'VideoProtectionRuleset',
  'StreamingConfiguration',
] as const;
const seedKey: Record<string, string> = {
  Vod: 'vods',
  Banner: 'banners',
  RtmpIngest: 'rtmp_ingests',
  Offer: 'offers',
  CreativeWork: 'creative_works',
  Event: 'events',
  VideoProtectionRuleset: 'video_protection_rulesets',
  StreamingConfiguration: 'configurations',
};

/** Documents and the matching live state; every 100th resource differs live, so 1% of the plan is updates. */
export function generate(n: number, kinds: readonly string[] = KINDS) {
  const docs: Doc[] = [];
  const seed: Record<string, unknown[]> = {};
  for (let i = 0; i < n; i++) {
    const kind = kinds[i % kinds.length];
    const id = `${kind.toLowerCase()}_${i}`;
    const label = `${kind} ${i}`;
    const changed = i % 100 === 7;
    const text = kind === 'CreativeWork' || kind === 'Event' ? 'title' : 'name';
    const project = kind === 'Vod' || kind === 'RtmpIngest' ? {} : { project_id: 'bench' };
    const config = kind === 'StreamingConfiguration';
    const extra: Record<string, unknown> = config
      ? { type: 'CONFIGURATION_TYPE_TRANSCODER_OVERLAYS', description: 'declared' }
      : kind === 'Offer'
        ? { priority: i % 10, offer_prices: [{ price: { currency_code: 'EUR', units: 5, nanos: 0 } }] }
        : {};
    const spec = { ...project, [text]: label, ...extra };
    docs.push({ kind, name: `r${i}`, ...(config ? {} : { id }), spec });
    // A configuration is found by project, type and name, so its description is what changes, not its name.
    const old = config ? { description: changed ? 'old' : 'declared' } : { [text]: changed ? `${label} (old)` : label };
    (seed[seedKey[kind]] ??= []).push({ id, project_id: 'bench', ...spec, ...old });
  }
  return { docs, seed };
}

/** The paths of the documents read by one GET each (kinds without a list), for the bare loop: a file in `dir`. */
export function writeGetPaths(dir: string, seed: Record<string, unknown[]>): string {
  const file = join(dir, 'get-paths.json');
  const paths = Object.entries(seed).flatMap(([key, items]) => {
    const k = builtinKinds.find((x) => x.seedKey === key)!;
    return k.list ? [] : (items as { id: string }[]).map((item) => readPath(k, { id: item.id, spec: {} }));
  });
  writeFileSync(file, JSON.stringify(paths));
  return file;
}

/** The CPU floor of a plan: its parser alone (bench/parse-floor.mjs) and the bare loop of its requests; and the ratio. */
export function cpuFloor(plan: { cpu_ms: number }, parse: { cpu_ms: number }, bare: { cpu_ms: number }) {
  const floor_ms = parse.cpu_ms + bare.cpu_ms;
  return {
    parse_cpu_ms: parse.cpu_ms,
    bare_cpu_ms: bare.cpu_ms,
    floor_ms,
    ratio: +(plan.cpu_ms / floor_ms).toFixed(2),
  };
}

export function writeConfig(docs: Doc[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
  for (const kind of KINDS) {
    const mine = docs.filter((d) => d.kind === kind);
    if (mine.length) writeFileSync(join(dir, `${kind}.yaml`), mine.map((d) => stringify(d)).join('---\n'));
  }
  return dir;
}

/**
 * A freshly started emulator answers its first few hundred requests slowly (its code is not compiled yet), which a
 * long-running platform never does; so before the timed steps every list is read once and each kind a few hundred
 * times. Only the emulator warms up: every tapedeck run is a new, cold process, as in CI.
 */
async function warmUp(url: string, seed: Record<string, unknown[]>) {
  const headers = { authorization: 'Bearer dev-token' };
  for (const [key, items] of Object.entries(seed)) {
    const k = builtinKinds.find((x) => x.seedKey === key)!;
    if (k.list) await (await fetch(`${url}${k.list.path}?project_id=bench&page_size=1000`, { headers })).text();
    for (const item of items.slice(0, 300) as { id: string }[])
      await (await fetch(`${url}${readPath(k, { id: item.id, spec: {} })}`, { headers })).text();
  }
}

/** An emulator in its own process (bench/emulator.mjs), seeded from `seedText`. */
export async function forkEmulator(seedText: string, dir: string, latency: number) {
  const seedFile = join(dir, `seed-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(seedFile, seedText);
  const child = fork(join(root, 'bench/emulator.mjs'), [seedFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  const reply = <T>(message: object) =>
    new Promise<T>((done) => {
      child.once('message', (m) => done(m as T));
      if (Object.keys(message).length) child.send(message);
    });
  const { url } = await reply<{ url: string }>({});
  await warmUp(url, JSON.parse(seedText) as Record<string, unknown[]>);
  await reply({ latency });
  return {
    url,
    ask: reply,
    stats: async () =>
      (await reply<{ stats: { reads: number; writes: number; limited: number } }>({ stats: true })).stats,
    close: () =>
      new Promise<void>((done) => {
        child.once('exit', () => done());
        child.send({ close: true });
      }),
  };
}
export type Emulator = Awaited<ReturnType<typeof forkEmulator>>;

export interface Measured {
  code: number;
  wall_ms: number;
  cpu_ms: number;
  max_rss_mb: number;
}

/** One cold process: a tapedeck command through bench/measure.mjs, or another script that reports the same way;
 *  it must exit with one of `codes`. */
export function run(cliArgs: string[], script = 'bench/measure.mjs', codes = [0]): Promise<Measured> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.TAPEDECK_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.TAPEDECK_BENCH_PROF}`] : []),
        join(root, script),
        ...cliArgs,
      ],
      { env: { ...process.env, TAPEDECK_TOKEN: 'dev-token', CI: '' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (c) => {
      err += c;
    });
    child.on('exit', () => {
      const line = /BENCH (.*)/.exec(err);
      if (!line) return fail(new Error(`tapedeck failed:\n${err}`));
      const m = JSON.parse(line[1]) as Measured;
      if (!codes.includes(m.code)) return fail(new Error(`tapedeck exited ${m.code}:\n${err.slice(0, 2000)}`));
      done(m);
    });
  });
}
