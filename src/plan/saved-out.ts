// Where `plan --out` may write: a new file, or a saved plan it replaces. Never a file that holds something else (a
// document, the state, notes: one slip in a shell's history would lose it), a directory, or a new *.yaml/*.yml inside
// DIR, which the next run would read as a document and fail on. Asked before anything is read from the platform.
import { closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isYamlName, within } from '../load/files.js';

/** How every saved plan begins (jsonText of the plan: its first two keys); the state file has other keys. */
const SAVED_PLAN_HEAD = /^\{\s*"format_version":\s*\d+,\s*"tapedeck_version":/;

/** The first bytes of a regular file, as text. */
function head(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(256);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The head of a file, or '' when it cannot be read (then it is no plan this run may replace). */
function readableHead(file: string): string {
  try {
    return head(file);
  } catch {
    return '';
  }
}

/** The real path of `path`, or of its nearest ancestor that exists with the rest appended (a file not yet made). */
function realOrPlanned(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const up = dirname(path);
    return up === path ? path : join(realOrPlanned(up), basename(path));
  }
}

/** Why the plan may not be written to `file` (absolute), the configuration being `dir`; undefined: it may. */
export function planOutProblem(file: string, dir: string): string | undefined {
  let st;
  try {
    st = statSync(file);
  } catch {
    st = undefined; // not there yet (or unreadable: the write says so)
  }
  if (st?.isDirectory()) return 'is a directory: name the plan file';
  // An empty file holds nothing to lose (`plan --out "$(mktemp)"`).
  if (st && !(st.isFile() && (st.size === 0 || SAVED_PLAN_HEAD.test(readableHead(file)))))
    return 'exists and is not a tapedeck plan: it would be overwritten (remove it first, or choose another name)';
  if (!st && isYamlName(file) && within(realOrPlanned(file), realOrPlanned(dir)))
    return 'is inside DIR with a .yaml/.yml name: the next run would read it as a document (name it .json, or write it outside DIR)';
  return undefined;
}
