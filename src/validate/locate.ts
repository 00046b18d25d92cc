// Where in its source a document's problem is: the issue of a pointer, at the nearest position the reader recorded.
import { printable } from '../schema/values.js';
import type { Issue, SourceDoc } from '../types.js';

/** Messages quote keys and values of the document: printable() keeps each on one line and its text visible. */
export const issueAt = (
  src: SourceDoc,
  pointer: string,
  message: string,
  severity: Issue['severity'] = 'error',
): Issue => ({ file: src.file, pos: nearestPos(src, pointer), pointer, message: printable(message), severity });

/** Whether the value at `pointer` is, or is inside, a string a value from the environment went into: a message about
 *  it says (sensitive) instead of quoting it, and suggests nothing (a known value a slip away would give it away). */
export const fromEnvironment = (src: SourceDoc, pointer: string) =>
  !!src.sensitive?.some((s) => pointer === s || pointer.startsWith(`${s}/`));

/** The position of a pointer, or of its nearest ancestor that has one. */
export function nearestPos(src: SourceDoc, pointer: string) {
  let p = pointer;
  for (;;) {
    src.positions ??= src.locate?.(src.index) ?? new Map();
    const pos = src.positions.get(p);
    if (pos || p === '') return pos;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}
