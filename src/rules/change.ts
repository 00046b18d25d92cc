// The `change` a rule sees, made from one change of the plan as it is shown (sensitive values already read
// "(sensitive)"): the managed spec fields as maps, before and after, in CEL's types as the kind's schema gives them
// (int64 and integers as int, timestamps as timestamp), unset fields absent.
import { resourceModel, type Field } from '../schema/model.js';
import { isObject, type Json } from '../schema/values.js';
import type { Change } from '../types.js';

/** A value in CEL's types by its field: int64 text and whole numbers of integer fields as int (bigint). Made for
 *  every change a rule reads `before` or `after` of, in one cold pass over the plan: kept to few calls and
 *  allocations. */
function celValue(field: Field | undefined, v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return celScalar(field, v);
  if (Array.isArray(v)) {
    const items = field?.type === 'array' ? field.items : undefined;
    return v.map((x) => celValue(items, x));
  }
  const out: Record<string, unknown> = {};
  const props = field?.props;
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null) out[k] = celValue(props?.[k], x);
  }
  // As CEL reads a protobuf message: an unset scalar or list reads as its zero (a price of 0.50 has units 0),
  // an unset message is absent (has() tells).
  if (field) for (const [k, f] of zeroed(field)) if (!(k in out)) out[k] = zeroOf(f);
  return out;
}

function celScalar(field: Field | undefined, v: unknown): unknown {
  switch (field?.type) {
    case 'int64':
      return typeof v === 'number' && Number.isInteger(v)
        ? BigInt(v)
        : typeof v === 'string' && /^-?\d+$/.test(v)
          ? BigInt(v)
          : v;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
    case 'timestamp': {
      const t = typeof v === 'string' ? new Date(v) : undefined;
      return t && !Number.isNaN(t.getTime()) ? t : v;
    }
    default:
      return v;
  }
}

const ZEROED = new Set(['int64', 'integer', 'number', 'string', 'boolean', 'enum', 'array', 'map']);
const zeroedOf = new WeakMap<Field, Array<[string, Field]>>();

/** The fields of a message that read as a zero when unset (none for a message, a timestamp, or a read-only field). */
function zeroed(message: Field): Array<[string, Field]> {
  let list = zeroedOf.get(message);
  if (!list) {
    list = Object.entries(message.props ?? {}).filter(([, f]) => !f.readOnly && ZEROED.has(f.type));
    zeroedOf.set(message, list);
  }
  return list;
}

/** The zero an unset field reads as (a new list or map each time). */
function zeroOf(f: Field): unknown {
  switch (f.type) {
    case 'int64':
    case 'integer':
      return 0n;
    case 'number':
      return 0;
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'enum':
      return f.zero ?? '';
    case 'array':
      return [];
    default:
      return {};
  }
}

/** Mask paths (`a.b`) -> value, as one nested map; unset (null) values left out. */
function nested(model: Field | undefined, flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path in flat) {
    const v = flat[path];
    if (v === null || v === undefined) continue;
    // Most managed fields are top-level ones: no path to walk.
    if (!path.includes('.')) {
      out[path] = celValue(model?.props?.[path], v);
      continue;
    }
    const parts = path.split('.');
    let at = out;
    let field = model;
    for (const p of parts.slice(0, -1)) {
      field = field?.props?.[p];
      if (!isObject(at[p] as Json)) at[p] = {};
      at = at[p] as Record<string, unknown>;
    }
    at[parts[parts.length - 1]] = celValue(field?.props?.[parts[parts.length - 1]], v);
  }
  return out;
}

export interface ChangeContext {
  environment: string;
  /** the schema file of a kind (the registry's), for the values' types */
  schemaOf: (kind: string) => string | undefined;
  /** the managed fields as the last apply left them: a release's `before` */
  lastApplied?: (address: string) => Record<string, unknown> | undefined;
}

/**
 * The `change` variable of one change: its maps made when a rule first reads them (most rules read only the action
 * or the kind), once for every rule. `before` is absent for a create (a replace's is the old resource's, as the
 * last apply left it), `after` for a release; `changed` holds every field the change sends (all of them for a
 * create or a replace, the PATCH's for an update or a restore, none for a release, a move or a noop). One class, registered
 * with CEL as the type of `change` (compile.ts), so CEL takes it as it is, with no conversion per evaluation.
 */
export class ChangeVariable {
  readonly address: string;
  readonly kind: string;
  readonly name: string;
  readonly action: string;
  readonly environment: string;
  #before?: Record<string, unknown>;
  #after?: Record<string, unknown>;
  #changed?: string[];

  constructor(
    private readonly c: Change,
    private readonly ctx: ChangeContext,
  ) {
    this.address = c.address;
    this.kind = c.kind;
    this.name = c.address.slice(c.kind.length + 1);
    this.action = c.action;
    this.environment = ctx.environment;
  }

  private model(): Field | undefined {
    const schema = this.c.schema ?? this.ctx.schemaOf(this.c.kind);
    return schema ? resourceModel(schema) : undefined;
  }

  get changed(): string[] {
    return (this.#changed ??= (this.c.diff ?? []).map((d) => d.path));
  }

  get after(): Record<string, unknown> | undefined {
    if (this.c.action === 'release') return undefined;
    return (this.#after ??= nested(this.model(), this.c.managed ?? {}));
  }

  get before(): Record<string, unknown> | undefined {
    const { c } = this;
    if (c.action === 'create') return undefined;
    // A release gives up the resource as the last apply left it; a replace gives up the old one for the new: what a
    // rule compares the new values with is the old resource's (docs/guardrails.md, the table of actions).
    if (c.action === 'release' || c.action === 'replace')
      return (this.#before ??= nested(this.model(), this.ctx.lastApplied?.(c.moved_from ?? c.address) ?? {}));
    // Nothing changes: as it will be. Otherwise the live values of the fields that change, the rest as they will be.
    if (!c.diff?.length) return this.after;
    if (!this.#before) {
      const before: Record<string, unknown> = { ...c.managed };
      for (const d of c.diff) before[d.path] = d.before;
      this.#before = nested(this.model(), before);
    }
    return this.#before;
  }
}

/** What one evaluation of a rule sees: the change and the time the plan was made. */
export interface RuleVars {
  change: ChangeVariable;
  now: Date;
}

/** The `change` variable of one change. */
export const changeVariable = (c: Change, ctx: ChangeContext) => new ChangeVariable(c, ctx);
