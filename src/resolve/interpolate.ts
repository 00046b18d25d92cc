// ${var.NAME} and ${env.NAME} filled in on the parsed tree (never on raw text, so quoting and positions survive).
// A string that is exactly one reference takes the variable's value with its type. `$${` writes a literal `${`.
// ${Kind/name.id} references are left for the planner; they are resolved once ids are known. So a literal that
// looks like one (`$${Kind/name.id}`, or such text inside a variable's value) keeps its escape until then.
import type { Issue, SourceDoc } from '../types.js';
import { isObject } from '../schema/values.js';
import { escapeReferences, startsWithReference } from './refs.js';
import { closest } from '../schema/spelling.js';
import { nearestPos } from '../validate/locate.js';

export interface VarContext {
  vars: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** told each value read from the environment that is long enough to mask in any output */
  secret?: (value: string) => void;
  /** the variables tapedeck.yaml names as credentials (token_env, a state URL's): refused as TAPEDECK_* are */
  credentials?: ReadonlySet<string>;
  /** the only variables that may be read (the agent's --document-env); undefined: any but the credentials */
  allowedEnv?: ReadonlySet<string>;
}

/** Values from the environment at least this long are also masked wherever they appear in output (shorter ones
 *  would mask ordinary words); every one is shown as (sensitive) where the plan shows the field it fills. */
const MASK_MIN = 8;

const TOKEN = /\$\$\{|\$\{([^}]*)\}/g;
const WHOLE = /^\$\{(var|env)\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * tapedeck's own credentials and settings (the token, a state database URL and its password) are never read into
 * a document, where a plan, a state or a server would show them. Any case: some systems ignore it in names.
 */
const OWN = /^(TAPEDECK_.*|PGPASSWORD)$/i;

type Missing = 'var' | 'env' | 'own' | 'operator';
type Found = { found: true; value: unknown } | { found: false; kind?: Missing };

function lookup(expr: string, ctx: VarContext): Found {
  const m = /^(var|env)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
  if (!m) return { found: false };
  const [, scope, name] = m;
  if (scope === 'var')
    return Object.hasOwn(ctx.vars, name)
      ? { found: true, value: literal(ctx.vars[name]) }
      : { found: false, kind: 'var' };
  if (OWN.test(name) || ctx.credentials?.has(name)) return { found: false, kind: 'own' };
  if (ctx.allowedEnv && !ctx.allowedEnv.has(name)) return { found: false, kind: 'operator' };
  return ctx.env[name] !== undefined ? { found: true, value: literal(ctx.env[name]) } : { found: false, kind: 'env' };
}

/** A variable's value is data: text in it that looks like a `${Kind/name.id}` reference stays that text. */
function literal(v: unknown): unknown {
  if (typeof v === 'string') return escapeReferences(v);
  if (Array.isArray(v)) return v.map(literal);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, literal(x)]));
  return v;
}

function problem(expr: string, kind: Missing | undefined): string {
  if (kind === 'var') return `undefined variable \${${expr}} (set it in the environment's vars, --var or --var-file)`;
  if (kind === 'env') return `environment variable ${expr.slice(4)} is not set (\${${expr}})`;
  if (kind === 'operator')
    return `\${${expr}} is not read by this agent: the variables documents may read are the operator's to name (--document-env ${expr.slice(4)})`;
  if (kind === 'own')
    return `\${${expr}} is refused: tapedeck's own credentials and settings (TAPEDECK_*, PGPASSWORD, and the variables tapedeck.yaml names for a token or a state URL) are never read into documents`;
  const near = meant(expr);
  return `malformed reference \${${expr}}: a \${...} is \${var.NAME}, \${env.NAME} or \${Kind/name.id} (write $\${ for a literal \${)${near ? `; did you mean \${${near}}?` : ''}`;
}

/** A `${Kind/name.id}` reference's inside (refs.ts finds these; a name holding "." cannot be referenced). */
const RESOURCE_REF = /^[A-Za-z]+\/[^}.\s]+\.id$/;
const SCOPED = /^(var|env)\.[A-Za-z_][A-Za-z0-9_]*$/;

/** What a malformed `${...}` most likely meant: without white space, with `.id`, with var/env spelt right. */
function meant(expr: string): string | undefined {
  const text = expr.replace(/\s+/g, '');
  if (text !== expr && (SCOPED.test(text) || RESOURCE_REF.test(text))) return text;
  const scoped = /^([A-Za-z]+)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(text);
  const scope = scoped && closest(scoped[1].toLowerCase(), ['var', 'env']);
  if (scoped && scope) return `${scope}.${scoped[2]}`;
  const ref = /^([A-Za-z]+)\/([^}.\s]+)(?:\.[A-Za-z]*)?$/.exec(text);
  return ref ? `${ref[1]}/${ref[2]}.id` : undefined;
}

/** `sensitive` is told when a value from the environment went into the string. */
function interpolateString(s: string, ctx: VarContext, fail: (msg: string) => void, sensitive: () => void): unknown {
  const fromEnv = (expr: string, r: Found) => {
    if (!r.found || !expr.startsWith('env.')) return;
    sensitive();
    if (typeof r.value === 'string' && r.value.length >= MASK_MIN) ctx.secret?.(r.value);
  };
  // A `${` that nothing closes is no placeholder either (an escaped one, `$${`, is a literal).
  const open = /(?<!\$)\$\{(?![^}]*\})/.exec(s);
  if (open)
    fail(
      `unclosed \${ at "${s.slice(open.index, open.index + 24)}": a \${...} ends with } (write $\${ for a literal \${)`,
    );
  const whole = WHOLE.exec(s);
  if (whole) {
    const r = lookup(`${whole[1]}.${whole[2]}`, ctx);
    fromEnv(`${whole[1]}.`, r);
    if (r.found) return r.value;
  }
  return s.replace(TOKEN, (all: string, expr: string | undefined, at: number) => {
    // The escape of a literal that reads as a resource reference is kept for the reference stage, which drops it.
    if (all === '$${') return startsWithReference(s, at + 1) ? all : '${';
    if (expr !== undefined && RESOURCE_REF.test(expr)) return all; // a resource reference, resolved later
    if (expr === undefined || !SCOPED.test(expr)) {
      // Anything else that reads as a placeholder would be sent as its text: refuse it.
      fail(problem(expr ?? '', undefined));
      return all;
    }
    const r = lookup(expr, ctx);
    if (!r.found) {
      fail(problem(expr, r.kind));
      return all;
    }
    fromEnv(expr, r);
    const text = typeof r.value === 'string' ? r.value : JSON.stringify(r.value);
    // A value ending in `$` right before a reference would turn it into an escaped literal: refuse the ambiguity.
    if (text.endsWith('$') && startsWithReference(s, at + all.length))
      fail(
        `\${${expr}} ends with "$" right before a reference, which would read as an escape; put something between them`,
      );
    return text;
  });
}

interface Sink {
  issue(pointer: string, msg: string): void;
  sensitive(pointer: string): void;
}

function walk(v: unknown, pointer: string, ctx: VarContext, sink: Sink): unknown {
  if (typeof v === 'string')
    return v.includes('${')
      ? interpolateString(
          v,
          ctx,
          (m) => sink.issue(pointer, m),
          () => sink.sensitive(pointer),
        )
      : v;
  if (Array.isArray(v)) return v.map((x, i) => walk(x, `${pointer}/${i}`, ctx, sink));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      out[k] = walk(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, ctx, sink);
    return out;
  }
  return v;
}

/** Fills variables into every document's value, in place; undefined ones become located issues. */
export function interpolateSources(sources: SourceDoc[], ctx: VarContext): Issue[] {
  const issues: Issue[] = [];
  for (const src of sources) {
    // Most documents hold no `${`; the native serializer finds that faster than a walk that rebuilds the tree.
    if (src.noPlaceholders || !JSON.stringify(src.value).includes('${')) continue;
    src.value = walk(src.value, '', ctx, {
      issue: (pointer, message) =>
        issues.push({ file: src.file, pos: nearestPos(src, pointer), pointer, message, severity: 'error' }),
      sensitive: (pointer) => (src.sensitive ??= []).push(pointer),
    });
  }
  return issues;
}
