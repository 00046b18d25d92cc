// Diagrams read by real parsers: Mermaid's own (the one GitHub draws a ```mermaid block with) and ts-graphviz's DOT
// parser. Each throws on a syntax error and gives back the nodes (id -> the label a reader sees) and the arrows.
import { parse as parseDotAst, type ASTBaseParentNode, type DotASTNode } from '@ts-graphviz/ast';
import { JSDOM } from 'jsdom';

export interface ParsedGraph {
  /** node id -> its label as shown (entities and escapes decoded) */
  nodes: Map<string, string>;
  /** [from id, to id] */
  edges: [string, string][];
}

interface MermaidApi {
  initialize(config: object): void;
  parse(text: string): Promise<unknown>;
  mermaidAPI: { getDiagramFromText(text: string): Promise<{ db: FlowDb }> };
}
interface FlowDb {
  getVertices(): Map<string, { id: string; text: string }>;
  getEdges(): { start: string; end: string }[];
}

let dom: JSDOM | undefined;
let loaded: Promise<MermaidApi> | undefined;

/** Mermaid needs a DOM (it sanitises labels with DOMPurify): jsdom's window, set once for the test file. */
function mermaidLib(): Promise<MermaidApi> {
  dom ??= new JSDOM('<!doctype html><html><body></body></html>');
  const g = globalThis as Record<string, unknown>;
  g.window ??= dom.window;
  g.document ??= dom.window.document;
  loaded ??= import('mermaid').then(({ default: m }) => {
    const api = m as unknown as MermaidApi;
    api.initialize({ startOnLoad: false });
    return api;
  });
  return loaded;
}

/**
 * What a label shows once drawn: Mermaid keeps its `#name;` entities as placeholders in the parsed text and turns
 * them into HTML entities when it draws (its decodeEntities); the browser then decodes those, as jsdom does here.
 */
function shownMermaidText(text: string): string {
  const html = text.replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');
  const el = dom!.window.document.createElement('textarea');
  el.innerHTML = html;
  return el.value;
}

export async function parseMermaid(text: string): Promise<ParsedGraph> {
  const mermaid = await mermaidLib();
  await mermaid.parse(text); // throws on a syntax error
  const { db } = await mermaid.mermaidAPI.getDiagramFromText(text);
  const nodes = new Map([...db.getVertices().values()].map((v) => [v.id, shownMermaidText(v.text)]));
  return { nodes, edges: db.getEdges().map((e) => [e.start, e.end]) };
}

/** A DOT label as Graphviz shows it: the parser turned `\"` into a quote already; `\\` is a backslash. */
const dotText = (s: string) => s.replace(/\\\\/g, '\\');

/** The statements read here: a node with its attributes, or an edge. */
interface DotStatement {
  type: string;
  id?: { value: string };
  targets?: { id: { value: string } }[];
  children: { key: { value: string }; value: { value: string } }[];
}

export function parseDot(text: string): ParsedGraph {
  const ast = parseDotAst(text) as DotASTNode;
  const graph = ast.children.find((c) => c.type === 'Graph') as ASTBaseParentNode | undefined;
  if (!graph) throw new Error('no graph in the DOT text');
  const nodes = new Map<string, string>();
  const edges: [string, string][] = [];
  for (const s of graph.children as DotStatement[]) {
    if (s.type === 'Node') {
      const l = s.children.find((a) => a.key.value === 'label');
      nodes.set(s.id!.value, l ? dotText(l.value.value) : s.id!.value);
    } else if (s.type === 'Edge') {
      const ids = s.targets!.map((t) => t.id.value);
      for (let i = 1; i < ids.length; i++) edges.push([ids[i - 1], ids[i]]);
    }
  }
  return { nodes, edges };
}
