// The common shapes of a rule evaluated without cel-js's interpreter: `change.name != ""`, `x in [...]`,
// `!has(change.after) || change.after.?title.orValue("x") != ""`, `change.address.startsWith(change.kind + "/")`,
// `size(change.changed) < 50`, `list.all(p, ...)`, and `&&`, `||`, `!` and `?:` of them. Each node of the checked tree
// becomes a small closure, once per compiled expression. A closure gives a value only where that value is
// unmistakably the one cel-js gives (operands of one simple type: strings, ints, bools, timestamps; fields of plain
// maps that are there; lists of known length); anywhere else (an error, a missing field, a type it does not take, a
// node it does not know, a loop that grows long) it gives GIVE_UP, and the whole expression is evaluated by CEL
// (compile.ts), so every error, its message and the cost budget stay CEL's own. Pure.
import type { RuleVars } from './change.js';
import {
  type Closure,
  type Frame,
  equality,
  GIVE_UP,
  giveUp,
  has,
  hasOwn,
  int64,
  isPlainMap,
  listSize,
  logic,
  membership,
  order,
  quantifier,
  SAME_SIMPLE,
  select,
  STRING_METHODS,
} from './direct-ops.js';

export { GIVE_UP } from './direct-ops.js';

/** A cel-js AST node, as far as this file reads it. */
interface Node {
  op: string;
  args: unknown;
  checkedType?: { name?: string; kind?: string };
}

const isNode = (x: unknown): x is Node =>
  typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;

/** How many nodes are below `n` (a loop's body costs that many steps an element). */
function size(n: unknown): number {
  if (Array.isArray(n)) return n.reduce((s: number, x) => s + size(x), 0);
  if (!isNode(n)) return 0;
  return 1 + (Array.isArray(n.args) || isNode(n.args) ? size(n.args) : 0);
}

/** Builds the closures of one tree; `bound` holds the macro variables in scope where a node stands. */
class Builder {
  /** the fields of `change` */
  constructor(private readonly fields: ReadonlySet<string>) {}

  /** The node's closure; GIVE_UP's for a node not known here. */
  build(n: unknown, bound: ReadonlySet<string>): Closure {
    if (!isNode(n)) return giveUp;
    const args = n.args as unknown[];
    switch (n.op) {
      case 'value':
        return SAME_SIMPLE.has(typeof n.args) ? () => n.args : giveUp;
      case 'id':
        return this.variable(n.args as string, bound);
      case '.': {
        const of = this.build(args[0], bound);
        const key = args[1] as string;
        return (f) => {
          const v = of(f);
          return v === GIVE_UP ? v : select(v, key, this.fields);
        };
      }
      case '!_': {
        const x = this.build(n.args, bound);
        return (f) => {
          const v = x(f);
          return typeof v === 'boolean' ? !v : GIVE_UP;
        };
      }
      case '&&':
      case '||':
        return logic(n.op, this.build(args[0], bound), this.build(args[1], bound));
      case '==':
      case '!=':
        return equality(n.op, this.build(args[0], bound), this.build(args[1], bound));
      case '<':
      case '<=':
      case '>':
      case '>=':
        return order(n.op, this.build(args[0], bound), this.build(args[1], bound));
      case 'in':
        return membership(this.build(args[0], bound), this.build(args[1], bound));
      case '?:':
        return this.conditional(args, bound);
      case '+':
        return this.concat(args, bound);
      case 'list': {
        const items = args.map((x) => this.build(x, bound));
        return (f) => {
          const out: unknown[] = [];
          for (const item of items) {
            const v = item(f);
            if (v === GIVE_UP) return v;
            out.push(v);
          }
          return out;
        };
      }
      case 'call':
        return this.call(args[0] as string, args[1] as unknown[], bound);
      case 'rcall':
        return this.method(args[0] as string, args[1], args[2] as unknown[], bound);
      default:
        return giveUp;
    }
  }

  private variable(name: string, bound: ReadonlySet<string>): Closure {
    if (bound.has(name)) return (f) => int64(f.scope.get(name));
    if (name === 'change') return (f) => f.vars.change;
    if (name === 'now') return (f) => f.vars.now;
    return giveUp;
  }

  private conditional([cond, yes, no]: unknown[], bound: ReadonlySet<string>): Closure {
    const [c, y, n] = [this.build(cond, bound), this.build(yes, bound), this.build(no, bound)];
    return (f) => {
      const v = c(f);
      return int64(v === true ? y(f) : v === false ? n(f) : GIVE_UP);
    };
  }

  /** `+` of two strings (ints, lists and timestamps are CEL's: it checks their ranges). */
  private concat([l, r]: unknown[], bound: ReadonlySet<string>): Closure {
    const [a, b] = [this.build(l, bound), this.build(r, bound)];
    return (f) => {
      const x = a(f);
      const y = x === GIVE_UP ? x : b(f);
      return typeof x === 'string' && typeof y === 'string' ? x + y : GIVE_UP;
    };
  }

  /** `size(list)` and `has(x.f)`. */
  private call(name: string, args: unknown[], bound: ReadonlySet<string>): Closure {
    if (name === 'size' && args.length === 1) return listSize(this.build(args[0], bound));
    const [arg] = args;
    if (name !== 'has' || args.length !== 1 || !isNode(arg) || arg.op !== '.') return giveUp;
    const [of, key] = arg.args as [unknown, string];
    const receiver = this.build(of, bound);
    return (f) => {
      const v = receiver(f);
      return v === GIVE_UP ? v : has(v, key, this.fields);
    };
  }

  /** `list.size()`, the string methods, `m.?f.orValue(x)`, and `all` and `exists` over a list. */
  private method(name: string, receiver: unknown, args: unknown[], bound: ReadonlySet<string>): Closure {
    if (name === 'size' && !args.length) return listSize(this.build(receiver, bound));
    if (STRING_METHODS[name] && args.length === 1) {
      const [of, arg, method] = [this.build(receiver, bound), this.build(args[0], bound), STRING_METHODS[name]];
      return (f) => {
        const s = of(f);
        const x = s === GIVE_UP ? s : arg(f);
        return typeof s === 'string' && typeof x === 'string' ? method(s, x) : GIVE_UP;
      };
    }
    if (name === 'orValue' && args.length === 1 && isNode(receiver) && receiver.op === '.?')
      return this.orValue(receiver.args as [unknown, string], args[0], bound);
    const [variable, body] = args as [Node, unknown];
    if ((name === 'all' || name === 'exists') && args.length === 2 && isNode(variable) && variable.op === 'id') {
      const inner = new Set(bound).add(variable.args as string);
      return quantifier(
        name,
        this.build(receiver, bound),
        variable.args as string,
        this.build(body, inner),
        size(body),
      );
    }
    return giveUp;
  }

  /** `m.?key.orValue(x)` of a plain map: its value when it has the key, else x. */
  private orValue([of, key]: [unknown, string], otherwise: unknown, bound: ReadonlySet<string>): Closure {
    const [map, fallback] = [this.build(of, bound), this.build(otherwise, bound)];
    return (f) => {
      const m = map(f);
      // cel-js evaluates the argument first, whether it is needed or not.
      const x = isPlainMap(m) ? fallback(f) : GIVE_UP;
      return x === GIVE_UP
        ? x
        : int64(
            hasOwn(m as object, key) && (m as Record<string, unknown>)[key] !== undefined
              ? (m as Record<string, unknown>)[key]
              : x,
          );
    };
  }
}

/**
 * The checked tree `ast` as closures: a function giving the expression's value, or GIVE_UP where CEL must evaluate.
 * Undefined when the tree's root is not known here (CEL evaluates it every time).
 */
export function direct(ast: unknown, fields: ReadonlySet<string>): ((vars: RuleVars) => unknown) | undefined {
  const root = new Builder(fields).build(ast, new Set());
  if (root === giveUp) return undefined;
  // One frame for every evaluation of the expression (they never overlap: an evaluation runs to its end at once):
  // no garbage per change. A loop's variables are taken out of its scope as the loop ends.
  const frame: Frame = { vars: undefined as unknown as RuleVars, scope: new Map(), steps: 0 };
  return (vars) => {
    frame.vars = vars;
    frame.steps = 0;
    return root(frame);
  };
}
