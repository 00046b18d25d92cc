// The fast YAML reader's one document (see fast-yaml.ts): block mappings and sequences, one-line flow collections,
// plain and quoted one-line scalars; anything else throws Unsupported, and the document is read by `yaml` instead.
import {
  plainKey,
  quoted,
  resolvePlain,
  trimSpaces,
  trimSpacesEnd,
  trimSpacesStart,
  unsupported,
} from './yaml-scalars.js';

/** Collections nest at most this deep: deeper nesting is an error (reported by load.ts), not a stack overflow. */
export const MAX_DEPTH = 100;

export interface Line {
  indent: number;
  /** the text after the indentation, comments not yet removed */
  text: string;
}

/** `- ...` or a lone `-`: a block sequence item (what /^-(?: |$)/ tests, without a regex per line). */
const isItem = (t: string) => t.charCodeAt(0) === 0x2d && (t.length === 1 || t.charCodeAt(1) === 0x20);

/** Characters that cannot start a plain block mapping key. */
const INDICATORS = '[{&*!|>%@`?#';

/** `-`, `?` or `:` followed by a blank, a flow indicator or nothing: an indicator, not the start of a plain scalar. */
const INDICATOR_START = /^[-?:](?:[ ,[\]{}]|$)/;

/** A plain block key that may mean something else: an indicator first (`- de` is a sequence item at the
 *  mapping's indentation, which `yaml` refuses), or a flow indicator inside (`k:{a` of `k:{a: }`). */
const ODD_PLAIN_KEY = /^[-?:](?:[ ,[\]{}]|$)|[,[\]{}]/;

/** Whether text[from..] holds at most a comment (which needs a blank before its `#`). */
const onlyComment = (text: string, from: number) => !trimSpaces(text.slice(from)) || /^ +#/.test(text.slice(from));

/** Where a comment starts in a block-context text from `from` on (`#` first or after a blank), or its length. */
function commentStart(s: string, from = 0): number {
  for (let i = s.indexOf('#', from); i >= 0; i = s.indexOf('#', i + 1)) {
    if (i === from || s[i - 1] === ' ' || s[i - 1] === '\t') return i;
  }
  return s.length;
}

export class Reader {
  private i = 0;
  /** how many collections the one being read is inside */
  private depth = 0;
  constructor(private readonly lines: Line[]) {}

  /** Around reading a collection; deeper than MAX_DEPTH is left to load.ts, which reports it. */
  private nested<T>(read: () => T): T {
    if (++this.depth > MAX_DEPTH) unsupported('deep nesting');
    const v = read();
    this.depth--;
    return v;
  }

  /** The document's root node. */
  document(): unknown {
    const v = this.block(this.lines[0].indent);
    if (this.i < this.lines.length) unsupported('content after the root node');
    return v;
  }

  private block(indent: number): unknown {
    const line = this.lines[this.i];
    if (isItem(line.text)) return this.nested(() => this.sequence(indent));
    if (this.keyEnd(line.text) >= 0) return this.nested(() => this.mapping(indent));
    this.i++;
    return this.inline(line, 0);
  }

  /** The index of the `:` that ends a block mapping key, or -1 when the text is not `key: ...`. */
  private keyEnd(text: string): number {
    if (text[0] === '"' || text[0] === "'") {
      const [, end] = quoted(text, 0);
      return text[end] === ':' && (end + 1 === text.length || text[end + 1] === ' ') ? end : -1;
    }
    if (INDICATORS.includes(text[0])) return -1;
    let colon = text.indexOf(':');
    while (colon >= 0 && colon + 1 < text.length && text[colon + 1] !== ' ') colon = text.indexOf(':', colon + 1);
    if (colon < 0 || commentStart(text) < colon) return -1;
    return colon;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent < indent) break;
      if (line.indent > indent) unsupported('unexpected indentation');
      const end = this.keyEnd(line.text);
      if (end < 0) unsupported('not a key');
      // `yaml` refuses an implicit key over 1024 characters; near that, let it decide.
      if (end > 1000) unsupported('a long key');
      const rawKey = line.text.slice(0, end);
      const isQuoted = rawKey[0] === '"' || rawKey[0] === "'";
      if (!isQuoted && ODD_PLAIN_KEY.test(rawKey)) unsupported('a key that may be an indicator or a flow collection');
      const key = isQuoted ? quoted(rawKey, 0)[0] : plainKey(trimSpacesEnd(rawKey));
      if (key === '__proto__' || key === '<<' || Object.hasOwn(out, key)) unsupported('a special or repeated key');
      // The value starts at the first non-blank after the colon; a comment or nothing there means a block value.
      let valueStart = end + 1;
      while (line.text.charCodeAt(valueStart) === 0x20) valueStart++;
      this.i++;
      if (valueStart < line.text.length && line.text[valueStart] !== '#') {
        out[key] = this.inline(line, valueStart);
        continue;
      }
      const next = this.lines[this.i];
      if (next && next.indent > indent) out[key] = this.block(next.indent);
      else if (next && next.indent === indent && isItem(next.text)) out[key] = this.nested(() => this.sequence(indent));
      else out[key] = null;
    }
    return out;
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    while (this.i < this.lines.length) {
      const line = this.lines[this.i];
      if (line.indent !== indent || !isItem(line.text)) {
        if (line.indent > indent) unsupported('unexpected indentation');
        break;
      }
      const body = line.text.slice(1);
      const off = body.length - trimSpacesStart(body).length + 1;
      const content = line.text.slice(off);
      if (!content || content[0] === '#') {
        this.i++;
        const next = this.lines[this.i];
        if (next && next.indent > indent) out.push(this.block(next.indent));
        else if (content)
          out.push(null); // `- # comment`: an empty item
        else unsupported('an empty item');
        continue;
      }
      // `- key: value` or `- - item`: the item is a block node starting at its content's column.
      if (isItem(content) || this.keyEnd(content) >= 0) {
        this.lines[this.i] = { indent: line.indent + off, text: content };
        out.push(this.block(line.indent + off));
        continue;
      }
      this.i++;
      out.push(this.inline(line, off));
    }
    return out;
  }

  /** A value written on one line from text[offset]: a flow collection or a scalar. */
  private inline(line: Line, offset: number): unknown {
    const text = line.text;
    const next = this.lines[this.i];
    if (next && next.indent > line.indent) unsupported('a value continued on the next line');
    const c = text[offset];
    if (c === '[' || c === '{') {
      const [v, end] = this.nested(() => this.flow(text, offset));
      if (!onlyComment(text, end)) unsupported('text after a flow collection');
      return v;
    }
    if (c === '"' || c === "'") {
      const [v, end] = quoted(text, offset);
      if (!onlyComment(text, end)) unsupported('text after a quoted scalar');
      return v;
    }
    if ('&*!|>%@`'.includes(c)) unsupported('an anchor, alias, tag or block scalar');
    const raw = trimSpacesEnd(text.slice(offset, commentStart(text, offset)));
    if (raw.includes(': ') || raw.endsWith(':') || INDICATOR_START.test(raw)) unsupported('an ambiguous plain scalar');
    return resolvePlain(raw);
  }

  /** A flow collection from text[i]; returns its value and the index after it. */
  private flow(text: string, i: number): [unknown, number] {
    const close = text[i] === '[' ? ']' : '}';
    const isMap = close === '}';
    const out: unknown[] | Record<string, unknown> = isMap ? {} : [];
    let j = i + 1;
    const skip = () => {
      while (text[j] === ' ') j++;
    };
    for (;;) {
      skip();
      if (j >= text.length) unsupported('a flow collection over several lines');
      if (text[j] === close) return [out, j + 1];
      let key: string | undefined;
      if (isMap) {
        const quotedKey = text[j] === '"' || text[j] === "'";
        let raw: unknown;
        [raw, j] = this.flowScalar(text, j, true);
        key = quotedKey ? String(raw) : plainKey(String(raw));
        if (key === '__proto__' || key === '<<' || Object.hasOwn(out, key)) unsupported('a special or repeated key');
        skip();
        if (text[j] !== ':') unsupported('a flow mapping entry without a value');
        j++;
        skip();
      }
      let v: unknown;
      if (text[j] === '[' || text[j] === '{') {
        [v, j] = this.nested(() => this.flow(text, j));
      } else if (isMap && (text[j] === ',' || text[j] === '}')) {
        v = null;
      } else {
        [v, j] = this.flowScalar(text, j, false);
      }
      if (isMap) (out as Record<string, unknown>)[key!] = v;
      else (out as unknown[]).push(v);
      skip();
      if (text[j] === ',') j++;
      else if (text[j] !== close) unsupported('a malformed flow collection');
    }
  }

  private flowScalar(text: string, j: number, _asKey: boolean): [unknown, number] {
    if (text[j] === '"' || text[j] === "'") return quoted(text, j);
    if (/^[&*!|>%@`#[\]{},?]/.test(text[j] ?? '') || INDICATOR_START.test(text.slice(j, j + 2)))
      unsupported('an indicator in a flow collection');
    const start = j;
    // `:` ends a plain scalar only before a blank, a flow indicator or the end (`{a:1}` is the key "a:1").
    while (
      j < text.length &&
      !',[]{}'.includes(text[j]) &&
      !(text[j] === ':' && (j + 1 === text.length || ' ,[]{}'.includes(text[j + 1]))) &&
      !(text[j] === ' ' && text[j + 1] === '#')
    )
      j++;
    return [resolvePlain(trimSpaces(text.slice(start, j))), j];
  }
}
