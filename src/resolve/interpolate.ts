// ${var.NAME} and ${env.NAME} filled in on the parsed tree (never on raw text, so quoting and positions survive).
// A string that is exactly one reference takes the variable's value with its type. `$${` writes a literal `${`.
// ${Kind/name.id} references are left for the planner; they are resolved once ids are known.
import type { Issue, SourceDoc } from '../types.js';
import { isObject } from '../schema/values.js';
import { nearestPos } from '../validate/validate.js';

export interface VarContext {
  vars: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
}

const TOKEN = /\$\$\{|\$\{([^}]*)\}/g;
const WHOLE = /^\$\{(var|env)\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

function lookup(expr: string, ctx: VarContext): { found: boolean; value?: unknown; kind?: string } {
  const m = /^(var|env)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
  if (!m) return { found: false };
  const [, scope, name] = m;
  if (scope === 'var') return Object.hasOwn(ctx.vars, name) ? { found: true, value: ctx.vars[name] } : { found: false, kind: 'var' };
  return ctx.env[name] !== undefined ? { found: true, value: ctx.env[name] } : { found: false, kind: 'env' };
}

function interpolateString(s: string, ctx: VarContext, fail: (msg: string) => void): unknown {
  const whole = WHOLE.exec(s);
  if (whole) {
    const r = lookup(`${whole[1]}.${whole[2]}`, ctx);
    if (r.found) return r.value;
  }
  return s.replace(TOKEN, (all, expr: string | undefined) => {
    if (all === '$${') return '${';
    if (expr === undefined || !/^(var|env)\./.test(expr)) return all; // a resource reference, resolved later
    const r = lookup(expr, ctx);
    if (!r.found) {
      fail(r.kind === 'var' ? `undefined variable \${${expr}} (set it in the environment's vars, --var or --var-file)` :
        r.kind === 'env' ? `environment variable ${expr.slice(4)} is not set (\${${expr}})` : `malformed reference \${${expr}}`);
      return all;
    }
    return typeof r.value === 'string' ? r.value : JSON.stringify(r.value);
  });
}

function walk(v: unknown, pointer: string, ctx: VarContext, onIssue: (pointer: string, msg: string) => void): unknown {
  if (typeof v === 'string') return v.includes('${') ? interpolateString(v, ctx, (m) => onIssue(pointer, m)) : v;
  if (Array.isArray(v)) return v.map((x, i) => walk(x, `${pointer}/${i}`, ctx, onIssue));
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, ctx, onIssue);
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
    src.value = walk(src.value, '', ctx, (pointer, message) => {
      issues.push({ file: src.file, pos: nearestPos(src, pointer), pointer, message, severity: 'error' });
    });
  }
  return issues;
}
