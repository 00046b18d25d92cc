// The planner without a network: each folder NNN-name/ holds documents (*.yaml), the live platform as an
// emulator seed (live.yaml), optionally a state (state.json), and the plan it must give (expected-plan.json,
// a golden file: `npx vitest run test/scenarios -u` rewrites it, and the diff is reviewed like code). Reads are
// answered by the emulator's own handlers in-process, so what the planner sees is what the platform would send.
// A folder that also holds expected-plan.txt and expected-plan.md is rendered too: the same plan as the text and
// Markdown formats show it to a reviewer (golden files as well), its apply-order diagram read by Mermaid's parser.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { answer } from '../../src/emulator/routes.js';
import { Store } from '../../src/emulator/store.js';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { planFrom } from '../../src/plan/plan-from.js';
import type { Caller } from '../../src/remote/client.js';
import { readLive } from '../../src/live/read-live.js';
import { renderers } from '../../src/report/formats.js';
import { noStyle } from '../../src/report/style.js';
import { planReads } from '../../src/live/read-plan.js';
import { State } from '../../src/state/state.js';
import { checkDocuments } from '../../src/run/check.js';
import { readAndPlan } from '../../src/run/pipeline.js';
import type { Io, Plan } from '../../src/types.js';
import { parseMermaid } from '../helpers/diagrams.js';

const here = new URL('.', import.meta.url).pathname;
const folders = readdirSync(here, { withFileTypes: true })
  .filter((e) => e.isDirectory() && /^\d{3}-/.test(e.name))
  .map((e) => e.name)
  .sort();
const rendered = folders.filter((f) => existsSync(join(here, f, 'expected-plan.md')));

/** The emulator's answers as a client's: an error status is thrown as the ApiError the real client throws. */
function platform(seedFile: string): { caller: Caller; reads: string[] } {
  const store = new Store();
  store.seed(readFileSync(seedFile, 'utf8'), seedFile);
  const reads: string[] = [];
  const caller: Caller = {
    call: async (method, path, body) => {
      reads.push(`${method} ${path}`);
      const r = answer(store, method, path, body);
      if (r.status >= 300) throw new ApiError(method, path, r.status, String(r.body.code), String(r.body.message));
      return { status: r.status, body: r.body };
    },
  };
  return { caller, reads };
}

/** The run's inputs for a scenario: its documents, no project file, every document planned, nothing shown. */
const inputs = (dir: string) => ({
  dir: join(dir, 'documents'),
  varFiles: [],
  envName: 'default',
  vars: {},
  registry: defaultRegistry,
  issueFormat: 'text' as const,
  allow: [],
  state: { kind: 'file' as const, path: join(dir, 'state.json') },
  targets: [],
  quiet: true,
  debug: false,
  concurrency: 4,
  recreateMissing: false,
  tokenSource: 'the scenario',
});

/** An Io that keeps what would be printed (the issues, if any: the scenario then fails on them). */
const quietIo = (cwd: string): Io => ({ out: () => {}, err: () => {}, env: {}, cwd, isTTY: false });

/**
 * The plan as the CLI makes it, through the run layer: the documents checked (checkDocuments), then read and planned
 * (readAndPlan: reading with each resource cut down to what the plan needs as it is read, then planFrom).
 */
async function planScenario(dir: string) {
  const opts = inputs(dir);
  const io = quietIo(dir);
  const { docs, issues } = checkDocuments(opts, io);
  expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
  const state = State.load(join(dir, 'state.json'));
  const { caller, reads } = platform(join(dir, 'live.yaml'));
  const reader = { ...caller, opts: { baseUrl: 'https://scenario.invalid/' } };
  const plan = await readAndPlan({ read: docs, planned: docs, all: docs, state }, reader, opts, io);
  return { plan, reads };
}

/**
 * The same steps by hand with the resources read whole (no planProjection): not the run layer's way on purpose, to
 * hold the projection to losing nothing the plan needs.
 */
async function planReadWhole(dir: string) {
  const { docs } = checkDocuments(inputs(dir), quietIo(dir));
  const state = State.load(join(dir, 'state.json'));
  const { caller } = platform(join(dir, 'live.yaml'));
  const { observed, failures, liveListed } = await readLive(planReads(docs, defaultRegistry, state), caller, state, {
    concurrency: 4,
  });
  expect(failures.map((f) => `${f.address}: ${f.error.message}`)).toEqual([]);
  return planFrom({ documents: docs, observations: { read: observed, liveListed }, state, registry: defaultRegistry });
}

describe('planner scenarios', () => {
  it('has scenarios to run', () => {
    expect(folders.length).toBeGreaterThanOrEqual(6);
  });
  it.each(folders)('%s', async (name) => {
    const dir = join(here, name);
    expect(existsSync(join(dir, 'live.yaml'))).toBe(true);
    const { plan, reads } = await planScenario(dir);
    await expect(`${JSON.stringify({ ...plan, reads: reads.sort() }, null, 2)}\n`).toMatchFileSnapshot(
      join(dir, 'expected-plan.json'),
    );
  });
  it.each(folders)('%s: the same plan from the resources read whole', async (name) => {
    const whole = await planReadWhole(join(here, name));
    const kept = await planScenario(join(here, name));
    expect(JSON.stringify(kept.plan)).toBe(JSON.stringify(whole));
  });

  it.each(rendered)('%s, as the text and Markdown formats show it', async (name) => {
    const dir = join(here, name);
    const { plan, reads } = await planScenario(dir);
    // What a command would add around the changes: a fixed environment, so the headers are the same every run.
    const whole: Plan = {
      format_version: 1,
      tapedeck_version: 'test',
      configuration_hash: '',
      state: { lineage: 'test', serial: 1 },
      environment: { name: 'staging', base_url: 'https://api.staging.example.com/' },
      requests: { reads: reads.length },
      ...plan,
    };
    const options = { style: noStyle, state: '.tapedeck/staging.state.json' };
    await expect(renderers.text.plan(whole, options)).toMatchFileSnapshot(join(dir, 'expected-plan.txt'));
    const md = renderers.markdown.plan(whole, options);
    await expect(md).toMatchFileSnapshot(join(dir, 'expected-plan.md'));
    // A diagram in it is one GitHub can draw: Mermaid's own parser reads it, every change drawn.
    for (const [, block] of md.matchAll(/^```mermaid\n([^]*?)^```$/gm)) {
      const drawn = [...(await parseMermaid(block)).nodes.values()];
      expect(drawn.sort()).toEqual(
        whole.changes
          .filter((c) => c.action !== 'noop')
          .map((c) => `${c.address} (${c.action})`)
          .sort(),
      );
    }
  });
});
