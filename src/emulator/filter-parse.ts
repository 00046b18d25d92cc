// The platform's filter grammar: Kibana Query Language as its Go library (kqlfilter.go) reads it, then that library's
// `Parse`, which keeps only a flat AND of clauses. Both steps follow the library's behaviour (not its code) so that
// the emulator accepts exactly the filters the platform accepts and reads them into the same clauses:
//
//   filter  := or (' '* or)*                 clauses side by side are an implicit AND
//   or      := and ('or' and)*
//   and     := not ('and' not)*
//   not     := 'not' group | group
//   group   := '(' or ')' | term             at most one level of brackets (depth limit 2, counting the list's)
//   term    := name ':' list | name range value | name contain andlist | name | bool   (a bare name is a value)
//   list    := '{' or '}' | '(' or ')' | value
//   andlist := '(' value ('and' value)* ')' | value
//   value   := (word | "quoted" | bool | '*')+   adjacent pieces join: `a*`, `"x y"*`
//
// Spaces may stand around every operator and bracket. Then, for `Parse`: the whole filter is one clause or a list
// of clauses, never an `or`, and never explicit `and` inside a space-separated list (or the reverse); a value list
// (`:(a or b)`) holds only values joined by `or`; `not` applies to one `field:value`; at most two clauses per
// field; at most 75 `and`/`or` words; a bare `true`/`false` is the clause `1 = 1`/`1 = 0`.
import { FilterError, lex, type Token, type TokenKind } from './filter-lex.js';

export type Operator = '=' | '!=' | 'IN' | '<' | '<=' | '>' | '>=' | '<@' | '>@';

export interface Clause {
  field: string;
  op: Operator;
  values: string[];
  /** where the clause starts in the filter (from 0), for the evaluator's messages */
  pos: number;
}

type Node =
  | { t: 'or' | 'and'; pos: number; items: Node[] }
  | { t: 'not' | 'nested'; pos: number; expr: Node }
  | { t: 'is' | 'range' | 'contain'; pos: number; field: string; op: string; value: Node }
  | { t: 'lit'; pos: number; value: string };

/** The library's limits for `Parse`: brackets two deep counting a value list's, 75 `and`/`or` words. */
const MAX_DEPTH = 2;
const MAX_WORDS = 75;
/** Go's TrimSpace decides an empty filter; its white space is wider than the lexer's separators. */
const BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** A word or quoted text where a value stands: see Token.inner. */
function unquoted(t: Token): string {
  if (t.inner === undefined)
    throw new FilterError('a value that is a lone escaped quote mark (the platform fails on this)', t.pos);
  return t.inner;
}

const show = (t: Token) => (t.kind === 'eof' ? 'end of filter' : JSON.stringify(t.text));

class Parser {
  private i = 0;
  private depth = 0;
  private words = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i];
  }
  private next(): Token {
    const t = this.tokens[this.i];
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  private skipSpace() {
    while (this.peek().kind === 'space') this.i++;
  }
  private is(kind: TokenKind) {
    return this.peek().kind === kind;
  }
  private expect(kind: TokenKind, context: string) {
    const t = this.next();
    if (t.kind !== kind)
      throw new FilterError(`expected ${JSON.stringify(kind)} to close ${context}, found ${show(t)}`, t.pos);
  }
  /** Every `and`/`or` counts, also inside value lists; the space of an implicit AND does not. */
  private countWord() {
    if (++this.words > MAX_WORDS)
      throw new FilterError(`more than ${MAX_WORDS} "and"/"or" (the platform's limit)`, this.peek().pos);
  }
  /** `( inner )` or `{ inner }`, the opening bracket next: one level deeper (value lists count). */
  private inBrackets(close: ')' | '}', context: string, inner: () => Node): Node {
    const pos = this.next().pos;
    if (++this.depth + 1 > MAX_DEPTH) throw new FilterError('brackets nested too deep (one level at most)', pos);
    this.skipSpace();
    const n = inner();
    this.skipSpace();
    this.expect(close, context);
    this.depth--;
    return n;
  }

  filter(): Node {
    this.skipSpace();
    const head = this.or();
    if (this.is('eof')) return head;
    const items = [head];
    while (!this.is('eof')) {
      this.skipSpace();
      items.push(this.or());
    }
    return { t: 'and', pos: head.pos, items };
  }

  private or(): Node {
    return this.joined('or', () => this.and(() => this.not()));
  }

  private and(item: () => Node): Node {
    return this.joined('and', item);
  }

  /** `item (word item)*`, a single item as itself (else placed at its first word); spaces after items are skipped. */
  private joined(word: 'and' | 'or', item: () => Node): Node {
    const items = [item()];
    this.skipSpace();
    const pos = this.peek().pos;
    while (this.is(word)) {
      this.countWord();
      this.next();
      this.skipSpace();
      items.push(item());
      this.skipSpace();
    }
    return items.length === 1 ? items[0] : { t: word, pos, items };
  }

  private not(): Node {
    if (!this.is('not')) return this.group();
    const pos = this.next().pos;
    this.skipSpace();
    return { t: 'not', pos, expr: this.group() };
  }

  private group(): Node {
    return this.is('(') ? this.inBrackets(')', 'a bracketed group', () => this.or()) : this.term();
  }

  private term(): Node {
    const name = this.peek();
    if (name.kind === 'bool') return { t: 'lit', pos: this.next().pos, value: name.text };
    if (name.kind !== 'word' && name.kind !== 'quoted') {
      throw new FilterError(`expected a field name, found ${show(name)}`, name.pos);
    }
    this.next();
    this.skipSpace();
    const opAt = this.i;
    const op = this.next();
    // A quoted field name keeps its quotes (`"title":x` names the field `"title"`), as the platform reads it.
    const field = name.value;
    const clause = (t: 'is' | 'range' | 'contain', value: () => Node): Node => {
      this.skipSpace();
      return { t, pos: name.pos, field, op: op.text, value: value() };
    };
    if (op.kind === ':') return clause('is', () => this.list());
    if (op.kind === 'range') return clause('range', () => this.value());
    if (op.kind === 'contain') return clause('contain', () => this.andList());
    // A name with no operator is a bare value (only true and false survive); what follows is read again.
    this.i = opAt;
    return { t: 'lit', pos: name.pos, value: unquoted(name) };
  }

  private list(): Node {
    const pos = this.peek().pos;
    if (this.is('{')) return { t: 'nested', pos, expr: this.inBrackets('}', 'a nested query', () => this.or()) };
    return this.is('(') ? this.inBrackets(')', 'a value list', () => this.or()) : this.value();
  }

  private andList(): Node {
    return this.is('(') ? this.inBrackets(')', 'a value list', () => this.and(() => this.value())) : this.value();
  }

  private value(): Node {
    const pos = this.peek().pos;
    let value = '';
    let pieces = 0;
    for (; !['eof', 'space', '(', ')', '{', '}'].includes(this.peek().kind); pieces++) {
      const t = this.next();
      if (t.kind === 'quoted' || t.kind === 'word') value += unquoted(t);
      else if (t.kind === 'bool' || t.kind === '*') value += t.text;
      else throw new FilterError(`unexpected ${show(t)} in a value (quote or escape it)`, t.pos);
    }
    if (!pieces) throw new FilterError(`expected a value, found ${show(this.peek())}`, pos);
    return { t: 'lit', pos, value };
  }
}

// `Parse`: the tree to a flat list of clauses, refusing what a list of ANDed clauses cannot say.

const notFlat = (n: Node, why: string) => new FilterError(why, n.pos);

function literals(n: Node, what: string): string[] {
  const items = n.t === 'lit' ? [n] : n.t === 'or' || n.t === 'and' ? n.items : [n];
  return items.map((v) => {
    if (v.t !== 'lit') throw notFlat(v, `${what} may hold only values`);
    return v.value;
  });
}

function clause(n: Node): Clause {
  switch (n.t) {
    case 'is':
      if (n.value.t === 'lit') return { field: n.field, op: '=', values: [n.value.value], pos: n.pos };
      if (n.value.t === 'nested') return clause(n.value);
      if (n.value.t !== 'or') throw notFlat(n.value, `a value list takes values joined by "or" (field ${n.field})`);
      return { field: n.field, op: 'IN', values: literals(n.value, 'a value list'), pos: n.pos };
    case 'range':
      return { field: n.field, op: n.op as Operator, values: literals(n.value, 'a range'), pos: n.pos };
    case 'contain':
      return { field: n.field, op: n.op as Operator, values: literals(n.value, 'a containment list'), pos: n.pos };
    case 'not': {
      if (n.expr.t !== 'is') throw notFlat(n, '"not" applies to one field:value only');
      const c = clause(n.expr);
      if (c.op !== '=') throw notFlat(n, '"not" cannot apply to a value list');
      return { ...c, op: '!=' };
    }
    case 'lit':
      if (n.value !== 'true' && n.value !== 'false')
        throw notFlat(n, `a bare value ${JSON.stringify(n.value)} is not a clause (write field:value)`);
      return { field: '1', op: '=', values: [n.value === 'true' ? '1' : '0'], pos: n.pos };
    case 'nested':
      throw notFlat(n, 'nested queries ({...}) are not supported');
    case 'or':
      throw notFlat(n, '"or" between clauses is not supported (only AND; a value list `field:(a or b)` is)');
    case 'and':
      throw notFlat(
        n,
        'clauses joined by "and" cannot sit in a list of clauses joined by spaces (use one or the other)',
      );
  }
}

/** Reads a filter as the platform does; throws a FilterError (with its position) where the platform refuses it. */
export function parseFilter(input: string): Clause[] {
  if (BLANK.test(input)) return [];
  const root = new Parser(lex(input)).filter();
  const clauses = root.t === 'and' ? root.items.map(clause) : [clause(root)];
  if (root.t !== 'and') return clauses;
  const seen = new Map<string, number>();
  for (const c of clauses) {
    const n = (seen.get(c.field) ?? 0) + 1;
    if (n > 2) throw new FilterError(`field ${c.field} is used more than twice`, c.pos);
    seen.set(c.field, n);
  }
  return clauses;
}
