// The apply-order picture (report/graph.ts): which changes and arrows it draws, labels that Mermaid's own parser and
// a DOT parser read back as the address and action whatever the address holds, and the Markdown's size limit.
import { describe, expect, it } from 'vitest';
import { applyGraph, diagramMarkdown, DIAGRAM_LIMITS, dot, mermaid } from '../../src/report/graph.js';
import type { Action, Change } from '../../src/types.js';
import { oneLine } from '../../src/util/escape.js';
import { parseDot, parseMermaid } from '../helpers/diagrams.js';

const change = (address: string, action: Action, depends_on?: string[]): Change => ({
  address,
  kind: address.split('/')[0],
  action,
  depends_on,
});

describe('applyGraph', () => {
  it.each([
    [
      'a reference between two creates',
      [change('Event/e', 'create'), change('Offer/o', 'create', ['Event/e'])],
      ['Event/e', 'Offer/o'],
      [[0, 1]],
    ],
    [
      'a dependency on an unchanged resource draws no arrow, and the noop no node',
      [change('Event/e', 'noop'), change('Offer/o', 'update', ['Event/e'])],
      ['Offer/o'],
      [],
    ],
    [
      'a default handed over (requires is also in depends_on)',
      [change('Policy/old', 'update'), change('Policy/new', 'create', ['Policy/old'])],
      ['Policy/old', 'Policy/new'],
      [[0, 1]],
    ],
    [
      'one arrow for an address named twice',
      [change('Event/e', 'create'), change('Offer/o', 'replace', ['Event/e', 'Event/e'])],
      ['Event/e', 'Offer/o'],
      [[0, 1]],
    ],
    [
      'releases are drawn; nothing depends on them',
      [change('Vod/gone', 'release'), change('Vod/v', 'update')],
      ['Vod/gone', 'Vod/v'],
      [],
    ],
  ])('%s', (_, changes, nodes, edges) => {
    const g = applyGraph({ changes });
    expect(g.nodes.map((n) => n.address)).toEqual(nodes);
    expect(g.edges).toEqual(edges);
  });
});

/** Addresses holding what Mermaid, DOT, HTML or Markdown would act on. */
const hostile = [
  'Offer/plain-name_1.2',
  'Offer/with "quotes"',
  'Offer/br[ack]ets{x}(y)',
  'Offer/#quot;entity#35;',
  'Offer/semi;colon%%comment',
  'Offer/arrow-->n2',
  'Offer/<b>html</b>&amp;',
  'Offer/`tick` *star* _u_',
  'Offer/back\\slash\\N\\"q',
  'Offer/pipe|tilde~caret^',
  'Offer/ünïcødé 日本 🎬',
  'Offer/bidi\u202eevil\u200bzero',
  'Offer/line\nbreak',
  'Offer/trailing\\',
];

describe('labels any parser reads back', () => {
  const g = applyGraph({
    changes: hostile.map((a, i) => change(a, i ? 'create' : 'update', i ? [hostile[i - 1]] : undefined)),
  });
  const shown = hostile.map((a, i) => oneLine(`${a} (${i ? 'create' : 'update'})`));

  it('Mermaid parses the flowchart: every node named by its address and action, the arrows as planned', async () => {
    const parsed = await parseMermaid(mermaid(g));
    expect([...parsed.nodes.values()]).toEqual(shown);
    expect(parsed.edges).toEqual(hostile.slice(1).map((_, i) => [`n${i + 1}`, `n${i + 2}`]));
  });

  it('DOT parses: every node named by its address and action, the arrows as planned', () => {
    const parsed = parseDot(dot(g));
    expect([...parsed.nodes.values()]).toEqual(shown);
    expect(parsed.edges).toEqual(hostile.slice(1).map((_, i) => [`n${i + 1}`, `n${i + 2}`]));
  });

  it('no line break, control character or backtick reaches the output', () => {
    for (const text of [mermaid(g), dot(g)])
      expect(text.split('\n').length).toBe(text.trimEnd().split('\n').length + 1);
    expect(mermaid(g)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u200b\u202e]/u);
    // In the Markdown plan the diagram stands in a ``` fence: no backtick may end it.
    expect(mermaid(g)).not.toContain('`');
  });

  it('a plan with no changes still parses', async () => {
    const empty = applyGraph({ changes: [change('Vod/v', 'noop')] });
    expect((await parseMermaid(mermaid(empty))).nodes.size).toBe(0);
    expect(parseDot(dot(empty)).nodes.size).toBe(0);
  });
});

describe('diagramMarkdown', () => {
  const chain = (n: number) =>
    Array.from({ length: n }, (_, i) => change(`Offer/o${i}`, 'create', i ? ['Offer/o0'] : undefined));

  it('no dependent changes: no diagram', () => {
    expect(diagramMarkdown({ changes: [change('Vod/a', 'update'), change('Vod/b', 'create')] })).toBe('');
  });

  it('up to the limit: a ```mermaid block that parses, every change in it', async () => {
    const md = diagramMarkdown({ changes: chain(DIAGRAM_LIMITS.nodes) });
    const block = /```mermaid\n([^]*?)```/.exec(md)![1];
    const parsed = await parseMermaid(block);
    expect(parsed.nodes.size).toBe(DIAGRAM_LIMITS.nodes);
    expect(parsed.edges).toHaveLength(DIAGRAM_LIMITS.nodes - 1);
    expect(md).toContain(
      `Apply order of the ${DIAGRAM_LIMITS.nodes} changes that depend on each other (${DIAGRAM_LIMITS.nodes - 1} dependencies)`,
    );
  });

  it('draws only the changes that depend on each other: independent ones neither crowd the picture nor count to its limit', async () => {
    const alone = Array.from({ length: DIAGRAM_LIMITS.nodes }, (_, i) => change(`Vod/v${i}`, 'update'));
    const md = diagramMarkdown({ changes: [...alone, ...chain(2)] });
    const parsed = await parseMermaid(/```mermaid\n([^]*?)```/.exec(md)![1]);
    expect([...parsed.nodes.values()].sort()).toEqual(['Offer/o0 (create)', 'Offer/o1 (create)']);
    expect(md).toContain(
      `Apply order of the 2 changes that depend on each other (1 dependency; ${DIAGRAM_LIMITS.nodes} other changes wait for nothing)`,
    );
  });

  it.each([
    [
      'changes',
      chain(DIAGRAM_LIMITS.nodes + 1),
      `${DIAGRAM_LIMITS.nodes + 1} changes are too many to draw (limit ${DIAGRAM_LIMITS.nodes})`,
    ],
    [
      'dependencies',
      Array.from({ length: 16 }, (_, i) =>
        change(
          `Offer/o${i}`,
          'create',
          Array.from({ length: i }, (_, j) => `Offer/o${j}`),
        ),
      ),
      `120 dependencies are too many to draw (limit ${DIAGRAM_LIMITS.edges})`,
    ],
  ])('over the limit of %s: one line instead, saying how to get it', (_, changes, why) => {
    const md = diagramMarkdown({ changes });
    expect(md).not.toContain('```');
    expect(md).toBe(
      `> 🗺️ Apply-order diagram left out: ${why}; \`tapedeck graph\` prints it (for a saved plan: \`tapedeck graph --plan FILE\`).`,
    );
  });
});
