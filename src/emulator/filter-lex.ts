// The tokens of the platform's `filter` language. The platform parses filters with its company's public Go library
// (kqlfilter.go, `Parse`); this lexer accepts and splits text exactly as that library's lexer does, quirks included,
// because a filter the emulator accepts and the platform refuses (or the reverse) is a bug a user only finds live.
// Positions are counted in characters (code points) from 0 here and printed from 1.

export class FilterError extends Error {
  constructor(
    readonly what: string,
    readonly pos: number,
  ) {
    super(`filter: ${what} at position ${pos + 1}`);
  }
}

export type TokenKind =
  | 'space'
  | 'word'
  | 'quoted'
  | 'bool'
  | 'or'
  | 'and'
  | 'not'
  | '('
  | ')'
  | '{'
  | '}'
  | ':'
  | '*'
  | 'range'
  | 'contain'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** the characters as written */
  text: string;
  /** word, quoted: the text with escapes replaced (a quoted one keeps its quotes, as a field name does) */
  value: string;
  /**
   * word, quoted: what a value (not a field name) uses: `value`, less its first and last byte when it starts with
   * a quote. A word can start with one too (`\x\"a\"` is `"a"`). Undefined where that would be a single quote
   * mark, which crashes the platform's parser when it gets there (as a field name it does not).
   */
  inner?: string;
  pos: number;
}

/** Separators: only these four; a vertical tab or a no-break space is part of a word. */
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
/** Characters that end a word, or need a backslash inside one. */
const SPECIAL = new Set(['\\', '(', ')', '{', '}', ':', '<', '>', '"', '*']);
/** What may follow a word; a `"` right after one is an error. */
const ENDS_WORD = new Set(['*', '>', '<', ':', ')', '(', '}', '{']);
const KEYWORDS = new Map<string, TokenKind>([
  ['or', 'or'],
  ['and', 'and'],
  ['not', 'not'],
  ['true', 'bool'],
  ['false', 'bool'],
]);
/** `\a`, `\o`, `\n` after lexing: the reserved word they stand for. */
const SPELLED = new Map([
  ['a', 'and'],
  ['o', 'or'],
  ['n', 'not'],
]);
/** The escapes a word may hold: a special character, or `\and`, `\or`, `\not` for a reserved word as text. */
const WORD_ESCAPES = ['and', 'or', 'not', ...SPECIAL];

const utf8 = new TextEncoder();
const text = new TextDecoder(); // non-fatal: a stray byte (see resolveEscapes) becomes U+FFFD

/**
 * Replaces escapes byte by byte, as the library does after lexing: `\x` for a special x is x; `\a`, `\o`, `\n`
 * write and/or/not and skip the 2, 1 or 2 bytes after them, whatever they are; any other escaped byte is dropped
 * with its backslash. Inside quotes and at the start of a word the lexer does not check escapes first, so these
 * rules reach text they were not meant for (`"\a"` is `"and`, whose value is `an`); the platform answers with that,
 * so do we.
 */
function resolveEscapes(raw: string, pos: number): Uint8Array {
  const s = utf8.encode(raw);
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== 0x5c) {
      out.push(s[i]);
      continue;
    }
    // The library indexes past the end here and crashes; a refusal is the nearest sane answer.
    if (++i >= s.length) throw new FilterError('a backslash that escapes nothing (the platform fails on this)', pos);
    const c = String.fromCharCode(s[i]);
    const word = SPELLED.get(c);
    if (word) {
      out.push(...utf8.encode(word));
      i += word.length - 1;
    } else if (SPECIAL.has(c)) out.push(s[i]);
  }
  return Uint8Array.from(out);
}

/** Splits a filter into tokens, ending with one `eof`; throws a FilterError at the first lexical error. */
export function lex(input: string): Token[] {
  return new Lexer(Array.from(input)).tokens();
}

/** One filter's characters read left to right: `i` is the next one. */
class Lexer {
  private readonly out: Token[] = [];
  /** unclosed ( and {, innermost last */
  private readonly open: Array<{ c: string; pos: number }> = [];
  private i = 0;

  constructor(private readonly cs: string[]) {}

  tokens(): Token[] {
    const { cs } = this;
    while (this.i < cs.length) {
      const start = this.i;
      const c = cs[this.i];
      if (isSpace(c)) {
        while (isSpace(cs[this.i])) this.i++;
        this.push('space', start);
      } else if (c === '"') this.quoted(start);
      else if (c === '<' || c === '>') {
        this.i++;
        const contain = cs[this.i] === '@';
        if (contain || cs[this.i] === '=') this.i++;
        this.push(contain ? 'contain' : 'range', start);
      } else if (c === '(' || c === '{') {
        this.open.push({ c, pos: this.i++ });
        this.push(c, start);
      } else if (c === ')' || c === '}') this.close(c, start);
      else if (c === ':' || c === '*') {
        this.i++;
        this.push(c, start);
      } else this.word(start);
    }
    const unclosed = this.open.find((o) => o.c === '(') ?? this.open[0];
    if (unclosed) throw new FilterError(`unclosed ${JSON.stringify(unclosed.c)}`, unclosed.pos);
    this.push('eof', this.i);
    return this.out;
  }

  private push(kind: TokenKind, start: number, bytes?: Uint8Array): void {
    const quoted = bytes?.[0] === 0x22;
    const inner = !bytes
      ? ''
      : !quoted
        ? text.decode(bytes)
        : bytes.length > 1
          ? text.decode(bytes.subarray(1, -1))
          : undefined;
    const value = bytes ? text.decode(bytes) : '';
    this.out.push({ kind, text: this.cs.slice(start, this.i).join(''), value, inner, pos: start });
  }

  /** Parentheses and braces are counted apart: `(}` fails only at the `}` (no brace open), `({)}` passes here. */
  private close(c: ')' | '}', start: number): void {
    const opener = c === ')' ? '(' : '{';
    const at = this.open.map((o) => o.c).lastIndexOf(opener);
    if (at < 0) throw new FilterError(`unexpected ${JSON.stringify(c)} with nothing open to close`, this.i);
    this.open.splice(at, 1);
    this.i++;
    this.push(c, start);
  }

  private word(start: number): void {
    const { cs } = this;
    // The first character is taken as it is (even a backslash, unchecked); the rest up to a special or a space.
    this.i++;
    for (;;) {
      const c = cs[this.i];
      if (c === undefined || isSpace(c) || (SPECIAL.has(c) && c !== '\\')) break;
      if (c === '\\') {
        const rest = cs.slice(this.i + 1, this.i + 4).join('');
        const esc = WORD_ESCAPES.find((e) => rest.startsWith(e));
        if (!esc)
          throw new FilterError(
            'invalid escape (a backslash escapes one of \\():<>"*{} or spells \\and, \\or, \\not)',
            this.i,
          );
        this.i += 1 + esc.length;
      } else this.i++;
    }
    if (cs[this.i] !== undefined && !isSpace(cs[this.i]) && !ENDS_WORD.has(cs[this.i])) {
      throw new FilterError(`unexpected ${JSON.stringify(cs[this.i])} right after a word`, this.i);
    }
    const raw = cs.slice(start, this.i).join('');
    const keyword = KEYWORDS.get(raw.toLowerCase());
    if (keyword) return this.push(keyword, start);
    this.push('word', start, resolveEscapes(raw, start));
  }

  private quoted(start: number): void {
    const { cs } = this;
    for (this.i++; cs[this.i] !== '"'; this.i++) {
      if (cs[this.i] === '\\') this.i++;
      if (cs[this.i] === undefined || cs[this.i] === '\n')
        throw new FilterError('unterminated quoted string (a quote cannot hold a line break)', start);
    }
    this.i++;
    this.push('quoted', start, resolveEscapes(cs.slice(start, this.i).join(''), start));
  }
}
