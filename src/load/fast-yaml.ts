// A fast reader for the plain subset of YAML that configuration files are written in: block mappings and
// sequences, one-line flow collections, plain and quoted one-line scalars, comments, `---`. It gives the same values
// (YAML 1.2 core schema) as the `yaml` library several times faster, which matters for large plans
// (docs/performance.md). It keeps no positions: they are needed only to report a
// problem, and are then taken from `yaml` (see load.ts). A document outside the subset (anchors, aliases, tags, block
// or multi-line scalars, complex keys, duplicate keys, any error) is refused, and the caller reads that document
// with `yaml` instead, so every error message still comes from the full parser; a few things make the whole file
// refused (see parseSimple). A document's value must not depend on which reader ran (so on the rest of its file):
// test/unit/fast-yaml*.test.ts compare them on thousands of files, the YAML test suite and every white space.

import {
  REFUSED_CHARACTERS,
  trimSpaces,
  trimSpacesEnd,
  trimSpacesStart,
  unsupported,
  Unsupported,
} from './yaml-scalars.js';
import { Reader, type Line } from './fast-yaml-reader.js';

export { Unsupported } from './yaml-scalars.js';
export { MAX_DEPTH } from './fast-yaml-reader.js';

/** Where a document is in its file's text: text.slice(start, end), without the `---` line before it. */
export interface DocText {
  /** 0-based position of the document in its file, as `yaml` counts them */
  index: number;
  start: number;
  end: number;
  /** the 1-based line of `start` */
  line: number;
}

export interface SimpleDoc extends DocText {
  value: unknown;
  /** its text holds no `${`, nor a backslash (an escape could spell one) */
  noPlaceholders: boolean;
}

/**
 * The documents of a file, each read, or refused (only its place given), on its own (a `---` line always starts a document, whatever came
 * before it); Unsupported when the whole file is to be read by `yaml` (tabs, controls, directives, document ends, or
 * content after `---`, which can make what follows part of it).
 */
export function parseSimple(text: string): Array<SimpleDoc | DocText> {
  if (REFUSED_CHARACTERS.test(text) || /^(%|\.\.\.)/m.test(text))
    unsupported('tabs, controls, directives or document ends');
  const docs: Array<SimpleDoc | DocText> = [];
  let current: Line[] = [];
  let index = 0;
  let started = false;
  let placeholders = false;
  /** where the current document's text starts, and on which line */
  let piece = { start: 0, line: 1 };
  const flush = (end: number) => {
    if (current.length) {
      const { start, line } = piece;
      try {
        docs.push({ index, start, end, line, value: new Reader(current).document(), noPlaceholders: !placeholders });
      } catch (e) {
        if (!(e instanceof Unsupported)) throw e;
        docs.push({ index, start, end, line });
      }
    }
    current = [];
    placeholders = false;
  };
  // Row by row, not split('\n') at once: a file of 12,500 documents would make an array of 150,000 rows that lives
  // (and so is promoted to the old generation) until the last of them is read.
  for (let start = 0, line = 1; start <= text.length; line++) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const row = text.slice(start, end);
    const rowStart = start;
    start = end + 1;
    if (row.charCodeAt(0) === 0x2d && /^---(?: |$)/.test(row)) {
      const after = trimSpaces(row.slice(3));
      if (after && !after.startsWith('#')) unsupported('content after ---');
      if (started) {
        flush(rowStart);
        index++;
      }
      started = true;
      piece = { start: Math.min(start, text.length), line: line + 1 };
      continue;
    }
    const content = trimSpacesStart(row);
    if (!content || content[0] === '#') continue;
    started = true;
    // An escape can spell `${` too (`"\x24{x}"`): a document with a backslash is searched, as every one `yaml` reads is.
    if (!placeholders && (content.includes('${') || content.includes('\\'))) placeholders = true;
    const last = content.charCodeAt(content.length - 1);
    current.push({ indent: row.length - content.length, text: last === 0x20 ? trimSpacesEnd(content) : content });
  }
  flush(text.length);
  return docs;
}
