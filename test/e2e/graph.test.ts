// The picture of the apply (issue 30 item 8): the Markdown plan draws the apply order as a Mermaid diagram where
// changes depend on each other, `tapedeck graph` prints it as Mermaid or DOT, from DIR or a saved plan; each output
// read back by a real parser (Mermaid's own, a DOT parser).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { parseDot, parseMermaid, type ParsedGraph } from '../helpers/diagrams.js';
import { emulator } from '../helpers/emulator.js';
import { renderGfm } from '../helpers/gfm.js';

let emu: Emulator;
beforeAll(async () => {
  const configuration = (id: string, isDefault: boolean) => ({
    id,
    project_id: 'p',
    name: id,
    type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS',
    default: isDefault,
  });
  emu = await emulator({
    events: [{ id: 'tpl', project_id: 'p', title: 'Template' }],
    vods: [{ id: 'v1', project_id: 'p', name: 'Old' }],
    configurations: [configuration('old', true), configuration('new', false)],
  });
});
afterAll(() => emu.close());

const event = { kind: 'Event', name: 'final', duplicate_from: 'tpl', spec: { title: 'The final' } };
const offer = (name: string) => ({
  kind: 'Offer',
  name,
  spec: { project_id: 'p', name, target: { event_ids: ['${Event/final.id}'] } },
});
const ruleset = {
  kind: 'VideoProtectionRuleset',
  name: 'geo',
  spec: { project_id: 'p', name: 'Rules of ${Event/final.id}' },
};
const vod = { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'New' } };

/** An event created before the offers and the ruleset that refer to it, and an update that waits for nothing. */
const dependent = () => testdir({ 'a.yaml': [offer('pass'), ruleset, vod, offer('season'), event] });

const expectedNodes = [
  'Event/final (create)',
  'Offer/pass (create)',
  'Offer/season (create)',
  'VideoProtectionRuleset/geo (create)',
  'Vod/v (update)',
];

/** The graph as address -> the addresses it waits for, whatever the node ids: what a reader of the picture sees. */
function waits(g: ParsedGraph): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const label of g.nodes.values()) out[label] = [];
  for (const [from, to] of g.edges) out[g.nodes.get(to)!].push(g.nodes.get(from)!);
  return out;
}

const expectedWaits = {
  'Event/final (create)': [],
  'Offer/pass (create)': ['Event/final (create)'],
  'Offer/season (create)': ['Event/final (create)'],
  'VideoProtectionRuleset/geo (create)': ['Event/final (create)'],
  'Vod/v (update)': [],
};

const mermaidBlocks = (md: string) => [...md.matchAll(/^```mermaid\n([^]*?)^```$/gm)].map((m) => m[1]);

/** A run that must send nothing: no token, requests counted. */
async function offline(args: string[], cwd: string) {
  const before = emu.stats.reads + emu.stats.writes;
  const run = await runCli(args, { cwd, env: { TAPEDECK_TOKEN: '' } });
  return { ...run, sent: emu.stats.reads + emu.stats.writes - before };
}

describe('the Markdown plan draws the apply order', () => {
  it('names every change by address and action, the event before the offers and the ruleset; GitHub sees a mermaid block', async () => {
    const dir = dependent();
    const run = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const blocks = mermaidBlocks(run.stdout);
    expect(blocks).toHaveLength(1);
    const g = await parseMermaid(blocks[0]);
    // The update that waits for nothing is not drawn: a row of unconnected boxes would only shrink the picture.
    expect([...g.nodes.values()].sort()).toEqual(expectedNodes.filter((n) => n !== 'Vod/v (update)'));
    const { ['Vod/v (update)']: _alone, ...connected } = expectedWaits;
    expect(waits(g)).toEqual(connected);
    expect(run.stdout).toContain(
      'Apply order of the 4 changes that depend on each other (3 dependencies; 1 other change waits for nothing)',
    );
    // Before the table: the picture, then what each change sends.
    expect(run.stdout.indexOf('```mermaid')).toBeLessThan(run.stdout.indexOf('| | Resource |'));
    expect(renderGfm(run.stdout)).toContain('<pre><code class="language-mermaid">flowchart TD\n');
  });

  it('a default handed over: the old default gives it up first', async () => {
    const doc = (name: string, isDefault: boolean) => ({
      kind: 'StreamingConfiguration',
      name,
      spec: { project_id: 'p', name, type: 'CONFIGURATION_TYPE_TRANSCODER_STREAMS', default: isDefault },
    });
    const dir = testdir({ 'a.yaml': [doc('new', true), doc('old', false)] });
    const run = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(waits(await parseMermaid(mermaidBlocks(run.stdout)[0]))).toEqual({
      'StreamingConfiguration/old (update)': [],
      'StreamingConfiguration/new (update)': ['StreamingConfiguration/old (update)'],
    });
  });

  it('no changes that depend on each other: no diagram', async () => {
    const dir = testdir({
      'a.yaml': [
        vod,
        { ...event, name: 'alone' },
        { kind: 'Offer', name: 'free', spec: { project_id: 'p', name: 'Free' } },
      ],
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Plan: 2 to create, 1 to update');
    expect(run.stdout).not.toContain('mermaid');
    expect(run.stdout).not.toContain('Apply order');
  });

  it('too many changes to read as a picture: one line says it was left out and how to get it; graph draws it whole', async () => {
    const offers = Array.from({ length: 60 }, (_, i) => offer(`bulk-${i}`));
    const dir = testdir({ 'a.yaml': [event, ...offers] });
    const run = await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(mermaidBlocks(run.stdout)).toEqual([]);
    expect(run.stdout).toContain(
      '> 🗺️ Apply-order diagram left out: 61 changes are too many to draw (limit 50); `tapedeck graph` prints it (for a saved plan: `tapedeck graph --plan FILE`).',
    );
    const graph = await runCli(['graph', ...against(emu.url, dir)], { cwd: dir });
    expect(graph.code, graph.stderr).toBe(0);
    const g = await parseMermaid(graph.stdout);
    expect(g.nodes.size).toBe(61);
    expect(g.edges).toHaveLength(60);
  });
});

describe('tapedeck graph', () => {
  let dir: string;
  beforeAll(async () => {
    dir = dependent();
    const run = await runCli(['plan', ...against(emu.url, dir), '--out', 'plan.json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
  });

  it.each([
    ['mermaid (the default)', [], parseMermaid],
    ['mermaid', ['--format', 'mermaid'], parseMermaid],
    ['dot', ['--format', 'dot'], parseDot],
  ] as const)(
    '--plan FILE as %s: parses, every change and dependency in it; no token, nothing sent',
    async (_, format, parse) => {
      const run = await offline(['graph', '--plan', 'plan.json', ...format], dir);
      expect(run).toMatchObject({ code: 0, stderr: '', sent: 0 });
      const g = await parse(run.stdout);
      expect([...g.nodes.values()].sort()).toEqual(expectedNodes);
      expect(waits(g)).toEqual(expectedWaits);
    },
  );

  it.each([['mermaid'], ['dot']])(
    "DIR as %s: planned as plan does, the same picture as the saved plan's",
    async (format) => {
      const run = await runCli(['graph', ...against(emu.url, dir), '--format', format], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe((await offline(['graph', '--plan', 'plan.json', '--format', format], dir)).stdout);
    },
  );

  it('--target draws only what plan --target plans', async () => {
    const run = await runCli(['graph', ...against(emu.url, dir), '--target', 'Offer/pass'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(waits(await parseMermaid(run.stdout))).toEqual({
      'Event/final (create)': [],
      'Offer/pass (create)': ['Event/final (create)'],
    });
  });

  it.each([
    [
      'an unknown format',
      ['--plan', 'plan.json', '--format', 'svg'],
      'error: --format must be mermaid or dot, not "svg"\n',
    ],
    [
      'both a directory and a saved plan',
      ['.', '--plan', 'plan.json'],
      'error: give a directory or --plan plan.json, not both: a saved plan records its own\n',
    ],
    ['a missing plan', ['--plan', 'nope.json'], /^error: saved plan \S*nope\.json: cannot read it \(ENOENT\)\n$/],
  ])('%s: one clear line, exit 1, nothing sent', async (_, args, message) => {
    const run = await offline(['graph', ...args], dir);
    expect(run).toMatchObject({ code: 1, stdout: '', sent: 0 });
    expect(run.stderr).toMatch(message);
  });
});
