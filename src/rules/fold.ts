// Which rules a change need not be evaluated on: an expression that is true for every change of one kind and action
// (in the run's environment, with `changed` empty or not) is true unevaluated. `change.kind != "Offer" || ...` on an
// Event, `change.environment != "staging" || ...` outside staging, `!has(change.after) || ...` on a release,
// `size(change.changed) < 50` on a noop: most of what a plan's rules would compute is known once per kind and action,
// and a plan is mostly noops. check.ts folds each rule once per such kind of change. Pure, and sound: a fold says
// true only where CEL's evaluation would give true (test/unit/rule-fold.test.ts checks it on the bench's rules).

/** What every change of one group shares: all a fold may use. */
export interface Facts {
  kind: string;
  action: string;
  environment: string;
  /** the change sends no field (no diff): `change.changed` is [] */
  changedEmpty: boolean;
}

/** A cel-js AST node, as far as this file reads it. */
interface Node {
  op: string;
  args: unknown;
}

/** A value known before the change is looked at; undefined: unknown. */
type Known = { v: unknown } | undefined;

const isNode = (x: unknown): x is Node =>
  typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;
const known = (v: unknown): Known => ({ v });
const SCALARS = new Set(['string', 'boolean', 'bigint']);
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** The node loops (a macro): its cost has no bound but the budget, so an `||` may not skip it by its other side. */
function loops(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(loops);
  if (!isNode(n)) return false;
  if (n.op === 'rcall' && MACROS.has((n.args as unknown[])[0] as string)) return true;
  return (Array.isArray(n.args) || isNode(n.args)) && loops(n.args);
}

/** `n` is `change.<field>`. (A macro's body, where a variable may be named `change`, is never folded.) */
function changeField(n: unknown): string | undefined {
  if (!isNode(n) || n.op !== '.') return undefined;
  const [of, field] = n.args as [Node, string];
  return of.op === 'id' && of.args === 'change' ? field : undefined;
}

class Folder {
  constructor(private readonly f: Facts) {}

  /** What the change's own fields give: the kind, the action, the environment, an empty `changed`. */
  private field(name: string): Known {
    const { f } = this;
    if (name === 'kind') return known(f.kind);
    if (name === 'action') return known(f.action);
    if (name === 'environment') return known(f.environment);
    if (name === 'changed' && f.changedEmpty) return known([]);
    return undefined;
  }

  /** A macro over a list known empty: `all` is true, `exists` false, `filter` and `map` empty. */
  private macro(name: string, receiver: Known): Known {
    if (!Array.isArray(receiver?.v) || receiver.v.length) return undefined;
    if (name === 'all') return known(true);
    if (name === 'exists' || name === 'exists_one') return known(false);
    return name === 'filter' || name === 'map' ? known([]) : undefined;
  }

  private boolOp(op: '||' | '&&', [l, r]: Node[]): Known {
    const decides = op === '||';
    const a = this.fold(l);
    if (a?.v === decides) return a;
    const b = this.fold(r);
    // `x || true` is true in CEL even when x fails, but x past its budget fails the evaluation: only a left side
    // that cannot loop is skipped by its right.
    if (b?.v === decides && !loops(l)) return b;
    return a?.v === !decides && b?.v === !decides ? known(!decides) : undefined;
  }

  private compare(op: string, [l, r]: Node[]): Known {
    const a = this.fold(l);
    const b = this.fold(r);
    if (!a || !b || typeof a.v !== typeof b.v || !SCALARS.has(typeof a.v)) return undefined;
    const [x, y] = [a.v as string | bigint | boolean, b.v as string | bigint | boolean];
    if (op === '==') return known(x === y);
    if (op === '!=') return known(x !== y);
    if (typeof x !== 'bigint' || typeof y !== 'bigint') return undefined;
    return known(op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y);
  }

  private membership([l, r]: Node[]): Known {
    const a = this.fold(l);
    if (typeof a?.v !== 'string') return undefined;
    if (r.op === 'list') {
      const items = (r.args as Node[]).map((x) => this.fold(x));
      return items.every((x) => typeof x?.v === 'string') ? known(items.some((x) => x!.v === a.v)) : undefined;
    }
    const list = this.fold(r);
    return Array.isArray(list?.v) && !list.v.length ? known(false) : undefined;
  }

  private call(n: Node): Known {
    const [name, args] = n.args as [string, Node[]];
    if (name === 'size') {
      const list = this.fold(args[0]);
      return Array.isArray(list?.v) ? known(BigInt(list.v.length)) : undefined;
    }
    if (name !== 'has') return undefined;
    // `before` is absent for a create, `after` for a release (change.ts): nothing else is known of them.
    const field = changeField(args[0]);
    if (field === 'before') return known(this.f.action !== 'create');
    if (field === 'after') return known(this.f.action !== 'release');
    return undefined;
  }

  private rcall(n: Node): Known {
    const [name, receiver, args] = n.args as [string, Node, Node[]];
    if (name === 'size' && !args.length) {
      const list = this.fold(receiver);
      return Array.isArray(list?.v) ? known(BigInt(list.v.length)) : undefined;
    }
    return MACROS.has(name) ? this.macro(name, this.fold(receiver)) : undefined;
  }

  /** What `n` is for every change of the group, as far as the facts say. */
  fold(n: unknown): Known {
    if (!isNode(n)) return undefined;
    switch (n.op) {
      case 'value':
        return SCALARS.has(typeof n.args) ? known(n.args) : undefined;
      case '.': {
        const field = changeField(n);
        return field === undefined ? undefined : this.field(field);
      }
      case '||':
      case '&&':
        return this.boolOp(n.op, n.args as Node[]);
      case '!_': {
        const x = this.fold(n.args);
        return typeof x?.v === 'boolean' ? known(!x.v) : undefined;
      }
      case '?:': {
        const [cond, yes, no] = n.args as Node[];
        const c = this.fold(cond);
        return typeof c?.v === 'boolean' ? this.fold(c.v ? yes : no) : undefined;
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.compare(n.op, n.args as Node[]);
      case 'in':
        return this.membership(n.args as Node[]);
      case 'call':
        return this.call(n);
      case 'rcall':
        return this.rcall(n);
      default:
        return undefined;
    }
  }
}

/** The expression is true for every change the facts describe: it need not be evaluated on them. */
export function knownTrue(ast: unknown, facts: Facts): boolean {
  return new Folder(facts).fold(ast)?.v === true;
}
