// Markdown as GitHub shows it: rendered by micromark with its GFM extension (tables, strikethrough, autolinks), raw
// HTML let through as GitHub's renderer does before its sanitiser, so a test sees every element a comment would make.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

export const renderGfm = (md: string) =>
  micromark(md, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The text a reader sees: tags dropped (a `<br>` is a line break), entities decoded. */
export const visibleText = (html: string) =>
  html
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e]);

/** Cells a Markdown table row really has, as GFM splits it: at every pipe not escaped by a backslash. */
export const sourceCells = (row: string) => row.split(/(?<!\\)\|/).length;

/** The Markdown tables of a text, as their lines (header, delimiter and rows). */
export const sourceTables = (md: string) =>
  md
    .split(/\n(?!\|)/)
    .map((block) => block.split('\n').filter((l) => l.startsWith('|')))
    .filter((t) => t.length);

/** Rows (`<tr>`) of each rendered table, each as its cells' inner HTML. */
export const renderedTables = (html: string) =>
  [...html.matchAll(/<table>([^]*?)<\/table>/g)].map(([, t]) =>
    [...t.matchAll(/<tr>([^]*?)<\/tr>/g)].map(([, r]) =>
      [...r.matchAll(/<t[hd][^>]*>([^]*?)<\/t[hd]>/g)].map(([, c]) => c),
    ),
  );
