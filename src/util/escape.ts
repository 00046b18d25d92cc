// How each output writes a text: on one line, as HTML or Markdown text, in a table cell's code span, in a GitHub
// workflow command. One place, so that the masking of secrets (redact.ts) knows every spelling a secret takes in an
// output as well as the renderers that write it.
import { UNPRINTABLE } from '../schema/values.js';

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control, line-separator, bidi and zero-width characters (values.ts UNPRINTABLE) written as escapes: the text
 *  stays readable, on one line, and shows every character it holds. */
export const oneLine = (s: string) =>
  s.replace(UNPRINTABLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const entities = (s: string) => oneLine(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Inside an HTML element (a details summary): entities, a quote too. */
export const htmlText = (s: string) => entities(s).replace(/"/g, '&quot;');

/** A backslash before what Markdown would act on. */
export const markdownEscaped = (s: string) => s.replace(/[\\`*_[\]|~#]/g, '\\$&');

/** Plain Markdown text in a table cell: entities for HTML, a backslash before what Markdown would act on (the plan's
 *  comment also writes a quote as an entity: markdownEscaped(htmlText(s))). */
export const markdownText = (s: string) => markdownEscaped(entities(s));

/** Inside a table cell's code span nothing is markup, but a pipe would end the cell. */
export const cellCode = (s: string) => s.replace(/\|/g, '\\|');

/** A value as a table cell's code span: on one line, a backtick (which would end the span) written as a quote. */
export const codeCell = (s: string) => `\`${cellCode(oneLine(s).replace(/`/g, "'"))}\``;

// GitHub's workflow commands (https://docs.github.com/actions/reference/workflow-commands-for-github-actions):
// a value ends at a line break and a property at `,` or `:`, so each is percent-encoded the way the Actions
// toolkit does (`escapeData`, `escapeProperty`). Otherwise a message could end its annotation and start another
// command on the next line.
export const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
export const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
