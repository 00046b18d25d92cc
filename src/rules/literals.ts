// A typo inside a rule's expression never switches the rule off: the sibling of match.ts's checks. A string literal
// compared with a field of `change` whose values are a closed set can never be equal to it, so `change.action ==
// "udpate"` is never true and `change.kind != "Ofer" || ...` always is: the rule silently checks nothing. The closed
// sets are what the configuration defines: the actions, the kinds, the project file's environments, the kind part of
// an address, the field paths `changed` holds, the fields of `before`/`after` (by the kinds the rule matches) and the
// values of their closed enums (a slip of a known value of an open enum warns). Pure: the parsed tree in, problems
// at their offsets out; compile.ts places them in the file.
import type { Field } from '../schema/model.js';
import { slipOf } from '../schema/spelling.js';
import { ACTIONS, suggestion } from './match.js';

/** What the configuration defines that a rule's expression may compare with. */
export interface Vocabulary {
  kinds: readonly string[];
  /** the project file's environments; empty: any name is one (--env chooses) */
  environments: readonly string[];
  /** the field model of a kind's spec */
  model: (kind: string) => Field | undefined;
}

/** A literal that can never match, at its offset in the expression; an open enum's slip is only a warning. */
export interface LiteralProblem {
  offset: number;
  problem: string;
  severity: 'error' | 'warning';
}

/** A cel-js AST node, as far as this file reads it. */
interface Node {
  op: string;
  args: unknown;
  start: number;
  pos: number;
}

/** What the values of an expression may be, as far as the configuration says. */
interface Domain {
  name: string;
  /** a closed set of strings: why `v` is none of them, or undefined when it may be one */
  never?: (v: string) => (Omit<LiteralProblem, 'offset'> & { verb?: string }) | undefined;
  /** a list: its elements' domain */
  element?: Domain;
  /** a message (or a union of them, one per kind): its fields' models */
  fields?: Field[];
}

const isNode = (x: unknown): x is Node =>
  typeof x === 'object' && x !== null && typeof (x as Node).op === 'string' && 'args' in x;
const stringLiteral = (n: unknown): n is Node & { args: string } =>
  isNode(n) && n.op === 'value' && typeof n.args === 'string';
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const LISTED = 12;

/** A closed set of names: `v` outside it is an error with a did-you-mean and, for a short set, the set. */
function oneOf(known: readonly string[], what: string, lead = ''): Domain['never'] {
  return (v) =>
    known.includes(v)
      ? undefined
      : {
          problem: `${lead}${suggestion(v, known)}${known.length <= LISTED ? ` (${what} ${known.join(', ')})` : ''}`,
          severity: 'error',
        };
}

/** The domain of a field, by its models (one per kind that has it); undefined where nothing is known of its values. */
function fieldDomain(name: string, fields: Field[]): Domain | undefined {
  if (fields.every((f) => f.type === 'message')) return { name, fields };
  if (fields.every((f) => f.type === 'array' && f.items)) {
    const element = fieldDomain(
      `${name}[]`,
      fields.map((f) => f.items!),
    );
    return { name, ...(element ? { element } : {}) };
  }
  if (fields.every((f) => f.allowed))
    return { name, never: oneOf([...new Set(fields.flatMap((f) => f.allowed!))], 'its values are') };
  if (fields.every((f) => f.type === 'enum' && (f.allowed ?? f.known))) {
    const known = [...new Set(fields.flatMap((f) => f.allowed ?? f.known ?? []))];
    return {
      name,
      never: (v) => {
        const slip = known.includes(v) ? undefined : slipOf(v, known);
        return slip
          ? {
              verb: 'is not known to take',
              problem: `: did you mean ${slip}? (the platform's full list of values is not public)`,
              severity: 'warning',
            }
          : undefined;
      },
    };
  }
  return undefined;
}

/** Every field path a change of these models may name in `changed` (messages descended into, as the diff does). */
function paths(model: Field, prefix = '', depth = 0): string[] {
  if (model.type !== 'message' || depth > 4) return [];
  return Object.entries(model.props ?? {}).flatMap(([k, f]) => [
    `${prefix}${k}`,
    ...paths(f, `${prefix}${k}.`, depth + 1),
  ]);
}

/** A path is one of the model's when each part is a field, or it goes below a free-form map. */
function hasPath(model: Field, path: string): boolean {
  let cur: Field | undefined = model;
  for (const part of path.split('.')) {
    if (cur?.type === 'map' || cur?.type === 'any') return true;
    cur = cur?.type === 'message' ? cur.props?.[part] : undefined;
    if (!cur) return false;
  }
  return true;
}

/** Checks the literals of one parsed expression against what the rule may see. */
class Checker {
  readonly problems: LiteralProblem[] = [];
  private readonly seen = new Set<string>();
  private readonly models: Field[];
  private readonly matched: string;

  constructor(
    private readonly v: Vocabulary,
    matchKinds: readonly string[] | undefined,
  ) {
    const kinds = matchKinds?.filter((k) => v.kinds.includes(k));
    this.models = (kinds?.length ? kinds : v.kinds).map((k) => v.model(k)).filter((m): m is Field => !!m);
    this.matched = kinds?.length ? ` (${kinds.join(', ')})` : '';
  }

  /** A problem, once: a node is resolved both in its comparison and on the walk below it. */
  private report(p: LiteralProblem): void {
    const key = `${p.offset} ${p.problem}`;
    if (!this.seen.has(key)) this.problems.push(p);
    this.seen.add(key);
  }

  /** The domain of `change.<field>`. */
  private changeField(field: string): Domain | undefined {
    const { kinds, environments } = this.v;
    switch (field) {
      case 'action':
        return { name: 'change.action', never: oneOf(ACTIONS, 'the actions are') };
      case 'kind':
        return { name: 'change.kind', never: oneOf(kinds, 'the kinds are') };
      case 'environment':
        if (!environments.length) return undefined;
        return {
          name: 'change.environment',
          never: (e) => oneOf(environments, 'it defines', `: the project file defines no environment ${e}`)!(e),
        };
      case 'address':
        return { name: 'change.address', never: (a) => this.addressKind(a) };
      case 'changed': {
        const known = [...new Set(this.models.flatMap((m) => paths(m)))];
        const never = (p: string) =>
          this.models.some((m) => hasPath(m, p))
            ? undefined
            : {
                problem: `: no kind the rule matches has that field${suggestion(p, known)}`,
                severity: 'error' as const,
              };
        return { name: 'change.changed', element: { name: 'change.changed[]', never } };
      }
      case 'after':
      case 'before':
        return { name: `change.${field}`, fields: this.models };
      default:
        return undefined;
    }
  }

  /** An address is KIND/NAME: one whose kind is none can never be a change's. */
  private addressKind(address: string): Omit<LiteralProblem, 'offset'> | undefined {
    const slash = address.indexOf('/');
    if (slash < 0) return { problem: ': an address is KIND/NAME (Offer/premium)', severity: 'error' };
    const kind = address.slice(0, slash);
    return oneOf(this.v.kinds, 'the kinds are', `: there is no kind ${kind}`)!(kind);
  }

  /** `of.name` in a message domain: the field's domain, or a problem where no model has the field. */
  private select(of: Domain, name: string, at: number): Domain | undefined {
    const messages = of.fields!;
    // A free-form map (or a value of any type) may hold any key.
    if (!messages.length || messages.some((m) => m.type !== 'message')) return undefined;
    const found = messages.map((m) => m.props?.[name]).filter((f): f is Field => !!f);
    if (!found.length) {
      const names = [...new Set(messages.flatMap((m) => Object.keys(m.props ?? {})))];
      this.report({
        offset: at,
        problem: `${of.name} has no field ${name}: no kind the rule matches${this.matched} has one${suggestion(name, names)}`,
        severity: 'error',
      });
      return undefined;
    }
    return fieldDomain(`${of.name}.${name}`, found);
  }

  /** What `n` may hold, by the variables in `scope` (a macro's variable is its list's element). */
  resolve(n: unknown, scope: ReadonlyMap<string, Domain>): Domain | undefined {
    if (!isNode(n)) return undefined;
    if (n.op === 'id') return scope.get(n.args as string);
    if (n.op === '.' || n.op === '.?') {
      const [of, field] = n.args as [Node, string];
      if (of.op === 'id' && of.args === 'change' && !scope.has('change')) return this.changeField(field);
      const base = this.resolve(of, scope);
      return base?.fields ? this.select(base, field, n.pos) : undefined;
    }
    if (n.op === '[]') {
      const [of, key] = n.args as [Node, Node];
      const base = this.resolve(of, scope);
      if (base?.element) return base.element;
      return base?.fields && stringLiteral(key) ? this.select(base, key.args, key.start + 1) : undefined;
    }
    if (n.op === 'rcall') {
      const [name, receiver] = n.args as [string, Node];
      if (name === 'orValue' || name === 'value') return this.resolve(receiver, scope);
    }
    return undefined;
  }

  /** `literal` can never be a value of `d`: a problem at the literal. */
  private compare(d: Domain | undefined, literal: Node & { args: string }, verb = 'is never', name = d?.name): void {
    // `!= ""` asks whether a value is set, as rules write it: never a typo.
    const found = literal.args === '' ? undefined : d?.never?.(literal.args);
    if (found)
      this.report({
        offset: literal.start,
        severity: found.severity,
        problem: `${name} ${found.verb ?? verb} "${literal.args}"${found.problem}`,
      });
  }

  /** Every comparison in `n` and below it checked. */
  walk(n: unknown, scope: ReadonlyMap<string, Domain>): void {
    if (Array.isArray(n)) return n.forEach((x) => this.walk(x, scope));
    if (!isNode(n)) return;
    const args = n.args as unknown[];
    if (n.op === '==' || n.op === '!=') {
      const [l, r] = args;
      if (stringLiteral(r)) this.compare(this.resolve(l, scope), r);
      else if (stringLiteral(l)) this.compare(this.resolve(r, scope), l);
    } else if (n.op === 'in') {
      const [l, r] = args;
      if (stringLiteral(l)) {
        const list = this.resolve(r, scope);
        this.compare(list?.element, l, 'never holds', list?.name);
      } else if (isNode(r) && r.op === 'list') {
        const d = this.resolve(l, scope);
        for (const x of r.args as unknown[]) if (stringLiteral(x)) this.compare(d, x);
      }
    } else if (n.op === 'rcall') {
      const [name, receiver, list] = n.args as [string, Node, unknown[]];
      const d = this.resolve(receiver, scope);
      if (name === 'startsWith' && d?.name === 'change.address' && stringLiteral(list[0]) && list[0].args.includes('/'))
        this.compare(d, list[0], 'never starts with');
      if (MACROS.has(name) && isNode(list[0]) && list[0].op === 'id') {
        const inner = new Map(scope);
        const element = d?.element;
        if (element) inner.set(list[0].args as string, element);
        else inner.delete(list[0].args as string);
        this.walk(receiver, scope);
        return this.walk(list.slice(1), inner);
      }
    }
    // A field read outside a comparison (`has(change.after.x)`) is checked too: its chain is resolved.
    if (n.op === '.' || n.op === '.?') return void this.resolve(n, scope);
    if (Array.isArray(n.args) || isNode(n.args)) this.walk(n.args, scope);
  }
}

/** The literals of a parsed expression that can never match what they are compared with, by the rule's kinds. */
export function neverMatching(ast: unknown, vocabulary: Vocabulary, matchKinds?: readonly string[]): LiteralProblem[] {
  const checker = new Checker(vocabulary, matchKinds);
  checker.walk(ast, new Map());
  return checker.problems;
}
