// The apply order as a picture: one node per change that writes or releases something, named by its address and
// action, and an arrow from each change to the changes that wait for it (depends_on: a reference, or a default
// handed over). Apply runs them in waves by the same arrows (apply.ts), so the picture is the order it will take.
// Pure: Mermaid (rendered by GitHub in a pull-request comment) and Graphviz DOT text from a plan, nothing else.
// Only addresses and actions are drawn: no value, so nothing sensitive.
import type { Action, Change, Plan } from '../types.js';
import { oneLine } from '../util/escape.js';

export interface GraphNode {
  address: string;
  action: Action;
}

export interface ApplyGraph {
  /** in the plan's order (dependencies first) */
  nodes: GraphNode[];
  /** [from, to] as indexes of `nodes`: `from` is applied before `to` */
  edges: [number, number][];
}

export type GraphFormat = 'mermaid' | 'dot';
export const GRAPH_FORMATS: readonly GraphFormat[] = ['mermaid', 'dot'];

/**
 * Past this many changes or arrows a drawn diagram is a tangle nobody reads (and GitHub's Mermaid stops drawing at
 * 500 arrows): the Markdown plan says it left the diagram out instead. `tapedeck graph` always draws it whole.
 */
export const DIAGRAM_LIMITS = { nodes: 50, edges: 100 } as const;

/** The changes that do something and the arrows between them; a dependency on an unchanged resource draws none. */
export function applyGraph(p: Pick<Plan, 'changes'>): ApplyGraph {
  const changed = p.changes.filter((c: Change) => c.action !== 'noop');
  const index = new Map(changed.map((c, i) => [c.address, i]));
  const edges: [number, number][] = [];
  changed.forEach((c, to) => {
    for (const from of new Set((c.depends_on ?? []).map((d) => index.get(d)))) {
      if (from !== undefined && from !== to) edges.push([from, to]);
    }
  });
  return { nodes: changed.map((c) => ({ address: c.address, action: c.action })), edges };
}

/** Node ids are ours (n1, n2, ...): an address never stands where the syntax could read it as anything but text. */
const id = (i: number) => `n${i + 1}`;
const label = (n: GraphNode) => oneLine(`${n.address} (${n.action})`);

/**
 * A Mermaid label, quoted: every character but letters, digits and plain punctuation becomes Mermaid's entity
 * (`#34;` for a quote), so a quote cannot end the label, `#...;` cannot be read as an entity, and HTML or a
 * Markdown backtick in an address shows as text.
 */
export const mermaidLabel = (s: string) =>
  `"${s.replace(/[^\p{L}\p{N} ./_:()=,+@*-]/gu, (c) => `#${c.codePointAt(0)};`)}"`;

/** A DOT string: a backslash and a quote escaped (oneLine left no line break). */
export const dotLabel = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;

export function mermaid(g: ApplyGraph): string {
  const lines = ['flowchart TD'];
  if (!g.nodes.length) lines.push('  %% no changes: nothing to apply');
  g.nodes.forEach((n, i) => lines.push(`  ${id(i)}[${mermaidLabel(label(n))}]`));
  for (const [from, to] of g.edges) lines.push(`  ${id(from)} --> ${id(to)}`);
  return `${lines.join('\n')}\n`;
}

export function dot(g: ApplyGraph): string {
  const lines = ['digraph apply_order {', '  rankdir=TB;', '  node [shape=box];'];
  if (!g.nodes.length) lines.push('  // no changes: nothing to apply');
  g.nodes.forEach((n, i) => lines.push(`  ${id(i)} [label=${dotLabel(label(n))}];`));
  for (const [from, to] of g.edges) lines.push(`  ${id(from)} -> ${id(to)};`);
  return `${lines.join('\n')}\n}\n`;
}

export const drawGraph: Record<GraphFormat, (g: ApplyGraph) => string> = { mermaid, dot };

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The part of a graph with arrows: the changes that wait for another or that another waits for. */
export function connected(g: ApplyGraph): ApplyGraph {
  const kept = [...new Set(g.edges.flat())].sort((a, b) => a - b);
  const at = new Map(kept.map((old, i) => [old, i]));
  return { nodes: kept.map((i) => g.nodes[i]), edges: g.edges.map(([from, to]) => [at.get(from)!, at.get(to)!]) };
}

/**
 * The Markdown plan's picture of the apply: only where changes depend on each other (without an arrow the order
 * says nothing), and only those changes, as a Mermaid block GitHub draws (a row of unconnected boxes would shrink
 * it to unreadable in an 880-pixel comment); past DIAGRAM_LIMITS one line saying it was left out and how to get it.
 * Empty when there is nothing to draw.
 */
export function diagramMarkdown(p: Pick<Plan, 'changes'>): string {
  const whole = applyGraph(p);
  const g = connected(whole);
  if (!g.edges.length) return '';
  const { nodes, edges } = DIAGRAM_LIMITS;
  const over =
    g.nodes.length > nodes
      ? `${g.nodes.length} changes are too many to draw (limit ${nodes})`
      : g.edges.length > edges
        ? `${g.edges.length} dependencies are too many to draw (limit ${edges})`
        : '';
  if (over) {
    const how = '`tapedeck graph` prints it (for a saved plan: `tapedeck graph --plan FILE`)';
    return `> 🗺️ Apply-order diagram left out: ${over}; ${how}.`;
  }
  const alone = whole.nodes.length - g.nodes.length;
  const others = alone ? `; ${count(alone, 'other change waits', 'other changes wait')} for nothing` : '';
  const counts = `${count(g.edges.length, 'dependency', 'dependencies')}${others}`;
  const summary = `🗺️ Apply order of the ${g.nodes.length} changes that depend on each other (${counts}): an arrow leads to a change that waits for the one it comes from`;
  return `<details open><summary>${summary}</summary>\n\n\`\`\`mermaid\n${mermaid(g)}\`\`\`\n\n</details>`;
}
