// A JSON file read in pieces: its top-level object member by member, and the members of one object in it (a
// state's `resources`) one at a time, each parsed on its own: a large state read as one string stays in memory
// until a full collection (docs/performance.md). Only where values end is found here; JSON.parse reads every
// piece, and anything unexpected gives up: the whole text is then parsed, so a malformed file gets JSON.parse's own
// answer, as before.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readBoundedFrom } from './files.js';

const [QUOTE, BACKSLASH, COLON, COMMA, OPEN, CLOSE, OPEN_LIST, CLOSE_LIST] = [...'"\\:,{}[]'].map((c) =>
  c.charCodeAt(0),
);
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The file holds more than the bound. */
export class TooBig extends Error {}

/** Where the string starting at `i` ends (after its closing quote), or -1 if that is not before `end`. */
function stringEnd(b: Buffer, i: number, end: number): number {
  for (i++; i < end; i++) {
    if (b[i] === BACKSLASH) i++;
    else if (b[i] === QUOTE) return i + 1;
  }
  return -1;
}

/** Where the value starting at `i` ends, or -1 if that is not before `end` (a scalar ends before a delimiter). */
function valueEnd(b: Buffer, i: number, end: number): number {
  if (b[i] === QUOTE) return stringEnd(b, i, end);
  if (b[i] !== OPEN && b[i] !== OPEN_LIST) {
    for (; i < end; i++) if (isSpace(b[i]) || b[i] === COMMA || b[i] === CLOSE || b[i] === CLOSE_LIST) return i;
    return -1;
  }
  // Brackets are only counted: a mismatched pair makes a piece JSON.parse refuses.
  for (let depth = 0; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) {
      const e = stringEnd(b, i, end);
      if (e < 0) return -1;
      i = e - 1;
    } else if (c === OPEN || c === OPEN_LIST) depth++;
    else if ((c === CLOSE || c === CLOSE_LIST) && --depth === 0) return i + 1;
  }
  return -1;
}

class Reader {
  private buf: Buffer;
  pos = 0;
  private end = 0;
  private total = 0;
  private eof = false;

  constructor(
    private readonly fd: number,
    private readonly max: number,
    chunk: number,
  ) {
    this.buf = Buffer.allocUnsafe(chunk);
  }

  /** Reads on, keeping the bytes from `pos` (moved to the front; a piece larger than the buffer doubles it). */
  private more(): boolean {
    if (this.eof) return false;
    this.buf.copy(this.buf, 0, this.pos, this.end);
    this.end -= this.pos;
    this.pos = 0;
    if (this.end === this.buf.length) this.buf = Buffer.concat([this.buf], this.buf.length * 2);
    const n = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
    this.total += n;
    if (this.total > this.max) throw new TooBig();
    this.end += n;
    this.eof = n === 0;
    return n > 0;
  }

  /** The next byte after white space, not taken; -1 at the end. */
  peek(): number {
    for (;;) {
      while (this.pos < this.end && isSpace(this.buf[this.pos])) this.pos++;
      if (this.pos < this.end) return this.buf[this.pos];
      if (!this.more()) return -1;
    }
  }

  /** The next value, parsed (JSON.parse throws if it is not JSON); undefined when none ends before the end. */
  value(): unknown {
    if (this.peek() < 0) return undefined;
    for (;;) {
      const e = valueEnd(this.buf, this.pos, this.end);
      if (e >= 0) {
        const text = this.buf.toString('utf8', this.pos, e);
        this.pos = e;
        return JSON.parse(text);
      }
      if (!this.more()) return undefined;
    }
  }
}

/** An object's members, each key handed to `member`, which reads its value; false where it is not an object. */
function members(r: Reader, member: (key: string) => boolean): boolean {
  if (r.peek() !== OPEN) return false;
  r.pos++;
  if (r.peek() === CLOSE) {
    r.pos++;
    return true;
  }
  for (;;) {
    const key = r.peek() === QUOTE ? r.value() : undefined;
    // An own `__proto__` is left to JSON.parse, which makes it a plain member.
    if (typeof key !== 'string' || key === '__proto__' || r.peek() !== COLON) return false;
    r.pos++;
    if (!member(key)) return false;
    const next = r.peek();
    r.pos++;
    if (next === CLOSE) return true;
    if (next !== COMMA) return false;
  }
}

/** A value of an object, read into `into[key]`; false where none could be read. */
function valueInto(r: Reader, into: Record<string, unknown>, key: string): boolean {
  const v = r.value();
  if (v === undefined) return false;
  into[key] = v;
  return true;
}

/**
 * The JSON value in a file, as JSON.parse of its text gives it (a SyntaxError where it is not JSON). The members of
 * its object member `inner` (and the other top-level members) are parsed one at a time where the file is a
 * regular one read as expected here; else the whole text is, read from the same open file (one that was replaced
 * or removed meanwhile is not read instead). Throws TooBig past `max` bytes, and the file system's errors.
 */
export function readJsonFile(file: string, inner: string, max: number, chunk = 1024 * 1024): unknown {
  const fd = openSync(file, 'r');
  try {
    const regular = fstatSync(fd).isFile();
    const pieces = regular ? inPieces(new Reader(fd, max, chunk), inner) : undefined;
    if (pieces) return pieces;
    const whole = readBoundedFrom(fd, max, regular ? 0 : undefined);
    if (!whole) throw new TooBig();
    return JSON.parse(whole.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** The object read, `inner` member by member; undefined where the text is not what this reader expects. */
function inPieces(r: Reader, inner: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  try {
    const read = members(r, (key) => {
      if (key !== inner || r.peek() !== OPEN) return valueInto(r, out, key);
      const nested: Record<string, unknown> = {};
      out[key] = nested;
      return members(r, (k) => valueInto(r, nested, k));
    });
    return read && r.peek() === -1 ? out : undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}
