// The quick reader: each document of a file read by js-yaml with the core schema as `yaml` resolves it
// (core-schema.ts), several times faster than `yaml`, which matters for large plans (docs/performance.md). It keeps
// no positions: they are needed only to report a problem, and are then taken from `yaml` (see load.ts). A document
// js-yaml cannot read, or one holding what the two readers might read differently (anchors, aliases, tags, explicit
// or collection keys, merge keys, escapes of surrogates, long lines, a null key, deep nesting), is refused, and the
// caller reads it with `yaml` instead, so every error message comes from `yaml`; a few things make the whole file
// refused (see parseQuick). A document's value must not depend on which reader ran (so on the rest of its file):
// test/unit/quick-yaml*.test.ts compare them on thousands of files, the YAML test suite and every white space.
import { load } from 'js-yaml';
import { CORE, unsupported, Unsupported } from './core-schema.js';

export { Unsupported } from './core-schema.js';

/** Collections nest at most this deep: deeper nesting is an error (reported by load.ts), not a stack overflow. */
export const MAX_DEPTH = 100;

/** Half of a surrogate pair, alone: no character (only an escape can make one; load.ts reports it). */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Characters the reader leaves to `yaml`: controls (tab, CR, VT, FF...), the line and paragraph separators and
 *  NEL (line breaks in YAML 1.1), a byte order mark (YAML's only at the start of a document), non-characters and
 *  unpaired surrogates. */
const REFUSED_CHARACTERS = new RegExp(
  `[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ufeff\\ufffe\\uffff]|${LONE_SURROGATE.source}`,
);

/** What the readers might read differently: an anchor, alias, tag or explicit key (after a blank, a flow indicator
 *  or a colon), a collection as a key (or what may be one: a flow collection after `{` or `,`), a merge key, an escape of a surrogate or beyond U+FFFF, a comment glued to what comes before it (js-yaml takes
 *  `"a"#b` and `[a]#b`, `yaml` refuses them), a block scalar (js-yaml reads some that `yaml` refuses). Matches inside
 *  strings too: such a document costs `yaml`'s reading, never a different value. */
const DIFFERENT =
  /(?<=^|[ [{,:])[&*!?]|[\]}]\s*:|[{,]\s*[[{]|<<|\\(?:u[dD][89a-fA-F]|U)|[,"'[{\]}]#|(?<=^| )[|>][-+0-9]* *(?:#[^\n]*)?$/m;

/** A line whose value is one quoted scalar closed on it (`key: '...'`, `- "..."`, or the scalar alone), maybe with a
 *  comment after it: the quote starts a node there, so what lies between it and its closing quote is the scalar's
 *  text to both readers (or, where the line continues a scalar begun above, that scalar's text). */
const QUOTED_LINE = /^( *(?:- +)*(?:[A-Za-z_][\w.-]*: +)?)('(?:[^'\n]|'')*'|"(?:[^"\\\n]|\\.)*")( *(?: #[^\n]*)?)$/gm;

/** What DIFFERENT takes for an indicator (a tag, an anchor, a flow indicator, a comment...); never a backslash, so
 *  the escapes it looks for stay. */
const INDICATOR = /[&*!?|>[\]{},#:<]/g;

/** A quote where a scalar may start (a node's start, in block or flow context): on a line that is no QUOTED_LINE, it
 *  may open a scalar over several lines, in which a later line would only look like one. */
const MAY_OPEN_QUOTE = /(?:^|[ [{,:])['"]/m;

/** `text` with the indicators inside its one-line quoted scalars made plain letters: CEL's `!` and `?` in a rule's
 *  expression are text, and need not leave the file to `yaml`. Unchanged where a scalar may span lines. */
const quotedTextHidden = (text: string) =>
  MAY_OPEN_QUOTE.test(text.replace(QUOTED_LINE, ''))
    ? text
    : text.replace(
        QUOTED_LINE,
        (_, lead: string, quoted: string, tail: string) =>
          lead + quoted[0] + quoted.slice(1, -1).replace(INDICATOR, '_') + quoted[quoted.length - 1] + tail,
      );

/** A character every match of DIFFERENT holds: most documents hold none, and one class is quick to search for. */
const SUSPECT = /[&*!?[\]{}#|><\\]/;

/** `yaml` refuses an implicit key over 1024 characters; a document with a line near that is left to it. */
const LONG_LINE = 1000;

/** Where a document is in its file's text: text.slice(start, end), without the `---` line before it. */
export interface DocText {
  /** 0-based position of the document in its file, as `yaml` counts them */
  index: number;
  start: number;
  end: number;
  /** the 1-based line of `start` */
  line: number;
}

export interface QuickDoc extends DocText {
  value: unknown;
  /** its text holds no `${`, nor a backslash (an escape could spell one) */
  noPlaceholders: boolean;
}

/** Throws Unsupported where `yaml` would read `v` otherwise: nested deeper than MAX_DEPTH, or a `null` key (`yaml`
 *  makes "" of an unquoted one, js-yaml "null"). */
function check(v: unknown, depth: number): void {
  if (typeof v !== 'object' || v === null) return;
  if (depth >= MAX_DEPTH) unsupported('deep nesting');
  if (Array.isArray(v)) {
    for (const item of v) check(item, depth + 1);
    return;
  }
  for (const key in v) {
    if (key === 'null') unsupported('a null key');
    check((v as Record<string, unknown>)[key], depth + 1);
  }
}

const refuseWarning = () => unsupported('a warning');

/** One document's text as js-yaml reads it, or Unsupported. */
function readDocument(text: string): unknown {
  if (
    (SUSPECT.test(text) && DIFFERENT.test(text) && DIFFERENT.test(quotedTextHidden(text))) ||
    text.includes('__proto__')
  )
    unsupported('a construct the readers may read differently');
  let value: unknown;
  try {
    value = load(text, { schema: CORE, onWarning: refuseWarning });
  } catch (e) {
    // Any error (a syntax error, a duplicate key, a stack overflow): `yaml` reads it and reports.
    if (e instanceof Unsupported) throw e;
    unsupported('js-yaml refused it');
  }
  check(value, 0);
  return value;
}

/** A `---` line: the start of a document, maybe with a comment (other content after it refuses the file). */
const SEPARATOR = /^---(?: ([^\n]*))?$/gm;

/** A row ending in a lone `-`: an item on the rows below, or an empty one (see emptyItem). */
const MAYBE_EMPTY_ITEM = /-(?: +#[^\n]*)?$/m;

/** Whether a row of `doc` is an empty item (a lone `-` at its end, nothing deeper after it): js-yaml misplaces the
 *  items after one. */
function emptyItem(doc: string): boolean {
  let dash = -1;
  for (const row of doc.split('\n')) {
    const indent = row.length - row.replace(/^ +/, '').length;
    if (indent === row.length || row[indent] === '#') continue;
    if (dash >= 0 && indent <= dash) return true;
    const item = /^((?:- +)*-)(?: +#.*)?$/.exec(row.slice(indent));
    dash = item ? indent + item[1].length - 1 : -1;
  }
  return dash >= 0;
}

/** Whether a row of `doc` is longer than LONG_LINE. */
const longLine = (doc: string) => doc.length > LONG_LINE && doc.split('\n').some((row) => row.length > LONG_LINE);

/** Text before the first `---` that is more than blanks and comments: then that `---` starts a second document. */
const CONTENT = /^ *[^ #\n]/m;

/** A row that is no comment with `${` or a backslash in it (an escape can spell `${` too: `"\x24{x}"`): the document
 *  is searched for variables and references, as every one `yaml` reads is. */
const mayHoldPlaceholders = (doc: string) =>
  (doc.includes('${') || doc.includes('\\')) && /^ *[^ #\n][^\n]*(?:\$\{|\\)/m.test(doc);

/** The 1-based line of `offset`, counted on from a known line at an earlier offset. */
function lineAt(text: string, from: { offset: number; line: number }, offset: number) {
  let { line } = from;
  for (let i = text.indexOf('\n', from.offset); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The documents of a file, each read, or refused (only its place given), on its own (a `---` line always starts a
 * document, whatever came before it); Unsupported when the whole file is to be read by `yaml` (tabs, controls,
 * directives, document ends, or content after `---`, which can make what follows part of it).
 */
export function parseQuick(text: string): Array<QuickDoc | DocText> {
  if (REFUSED_CHARACTERS.test(text) || /^(?:%|\.\.\.|---[^ \n])/m.test(text))
    unsupported('tabs, controls, directives, document ends or --- followed by text');
  const docs: Array<QuickDoc | DocText> = [];
  let index = 0;
  let at = { offset: 0, line: 1 };
  const read = (start: number, end: number) => {
    const line = lineAt(text, at, start);
    at = { offset: start, line };
    const doc = text.slice(start, end);
    if (!CONTENT.test(doc)) return;
    try {
      if (longLine(doc) || (MAYBE_EMPTY_ITEM.test(doc) && emptyItem(doc)))
        unsupported('a long line or an empty sequence item');
      docs.push({ index, start, end, line, value: readDocument(doc), noPlaceholders: !mayHoldPlaceholders(doc) });
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      docs.push({ index, start, end, line });
    }
  };
  let start = 0;
  let started = false;
  SEPARATOR.lastIndex = 0;
  for (let m = SEPARATOR.exec(text); m; m = SEPARATOR.exec(text)) {
    // Only spaces are blanks here: a no-break space is text to YAML.
    const after = (m[1] ?? '').replace(/^ +/, '');
    if (after && !after.startsWith('#')) unsupported('content after ---');
    // The first `---` starts document 0 when only blanks and comments come before it.
    if (started || CONTENT.test(text.slice(0, m.index))) {
      read(start, m.index);
      index++;
    }
    started = true;
    start = Math.min(m.index + m[0].length + 1, text.length);
  }
  read(start, text.length);
  return docs;
}
