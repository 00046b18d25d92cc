// The portable export: documents that apply to another project. What ties an exported document to its source
// project is marked in the schemas (x-ref: an id of another resource, x-ref-parts: a key made of ids) and rewritten
// here: a project and the organization become ${var.project} and ${var.organization}, an id of an exported resource
// a ${Kind/name.id} reference (created first in the new project, its id filled in), and any other id (an asset, an
// ingest or VOD, which cannot be created, a resource not exported) a variable. Each variable's source value is
// listed, so the user sees what the new environment must provide.
import type { Registry } from '../kinds/registry.js';
import { creatable } from '../kinds/types.js';
import { keyParts, resourceModel, type Field } from '../schema/model.js';
import { isObject, type Json, type JsonObject } from '../schema/values.js';
import type { ExportedDoc } from './export.js';

export interface PortableVar {
  name: string;
  /** the value in the project the documents were exported from */
  value: string;
  /** what it names: `project`, `asset`, a kind (`RtmpIngest`) */
  what: string;
  /** where it stands: `Offer/basic spec.target.event_ids` */
  usedBy: string[];
  /** what to give for it, where the source value alone does not say */
  hint?: string;
}

export interface Portable {
  docs: ExportedDoc[];
  vars: PortableVar[];
  /** what the user should know: a reference left a variable to avoid a cycle, a key of an unknown form */
  notes: string[];
}

/** A place a value stands: the document's address and the field's path. */
interface Site {
  address: string;
  path: string;
}

/** Called with each id at a marked field (its x-ref, its value, where): returns what to write instead. */
type Visit = (ref: string[], value: string, site: Site) => string;

/** Nouns whose variable is named by the noun alone: one project, one organization (numbered when several). */
const PLAIN = new Set(['project', 'organization']);

const snake = (kind: string) => kind.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 48);

/** Every id a document's spec holds at a marked field, visited (and replaced by what the visit returns). */
function walk(field: Field, v: Json | undefined, site: Site, visit: Visit): Json | undefined {
  if (typeof v === 'string') {
    // Text with a `$` in it was written literally by the export (`$${`): it is kept as it is, never made a variable.
    if (!v || v.includes('$')) return v;
    if (field.ref) return visit(field.ref, v, site);
    if (field.refParts) return parts(field, v, site, visit);
    return v;
  }
  if (Array.isArray(v) && field.type === 'array') return v.map((x) => walk(field.items!, x, site, visit) as Json);
  if (isObject(v) && field.type === 'message') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const f = field.props?.[k];
      out[k] = (f ? walk(f, x, { ...site, path: `${site.path}.${k}` }, visit) : x) as Json;
    }
    return out;
  }
  // A map of ids (localized asset ids): each value.
  if (isObject(v) && field.type === 'map' && field.ref) {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, walk({ ...field, type: 'string' }, x, site, visit) as Json]),
    );
  }
  return v;
}

/** A key of "/"-separated ids: the form with as many parts says what each part is; text parts stay. */
function parts(field: Field, v: string, site: Site, visit: Visit): string {
  const pairs = keyParts(field, v);
  if (!pairs) return visit([], v, site);
  return pairs.map(([s, ref]) => (ref === null ? s : visit([ref], s, site))).join('/');
}

/** The variables made so far, one per (what, value). */
class Variables {
  private byKey = new Map<string, PortableVar>();
  private taken = new Set<string>();

  /** `${var.NAME}` for a value; `named`: what to name it by instead of the value (a document's name), `hint` */
  name(what: string, value: string, site?: Site, named?: { by: string; hint: string }): string {
    const key = `${what}\u0000${value}`;
    let v = this.byKey.get(key);
    if (!v) {
      const noun = snake(what);
      const tail = slug(named?.by ?? value);
      // asset_1 stays asset_1, not asset_asset_1; a name starts with a letter whatever the value.
      const base = PLAIN.has(what) ? what : tail.startsWith(`${noun}_`) ? tail : [noun, tail].filter(Boolean).join('_');
      let name = base;
      for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
      this.taken.add(name);
      this.byKey.set(key, (v = { name, value, what, usedBy: [], ...(named ? { hint: named.hint } : {}) }));
    }
    const where = site && `${site.address} ${site.path}`;
    if (where && !v.usedBy.includes(where)) v.usedBy.push(where);
    return `\${var.${v.name}}`;
  }

  /** the variables some document uses (a --project none of them names is left out) */
  all = () => [...this.byKey.values()].filter((v) => v.usedBy.length);
}

/** Whether `to` is reachable from `from` in the references made so far. */
function reaches(graph: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === to) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    stack.push(...(graph.get(at) ?? []));
  }
  return false;
}

/** The exported documents made portable. `project`: the one exported (`--project`), named first. */
export function makePortable(registry: Registry, exported: ExportedDoc[], project?: string): Portable {
  const address = (d: ExportedDoc) => `${d.kind}/${d.name}`;
  const specSite = (d: ExportedDoc): Site => ({ address: address(d), path: 'spec' });
  const model = (d: ExportedDoc) => resourceModel(registry.get(d.kind)!.schema);
  const vars = new Variables();
  const notes: string[] = [];

  // First the projects and the organization, wherever they stand: an id elsewhere equal to one (the project in a
  // project's policy key) is that project.
  const plain = new Map<string, string>();
  if (project) plain.set(project, 'project');
  for (const d of exported) {
    walk(model(d), d.spec, specSite(d), (ref, value) => {
      if (PLAIN.has(ref[0]) && !plain.has(value)) plain.set(value, ref[0]);
      return value;
    });
  }

  // Named in the order found (--project first): the first project is `project` wherever it is used first.
  for (const [value, what] of plain) vars.name(what, value);

  // Exported resources by kind and id: what a reference can name.
  const byId = new Map<string, string>();
  for (const d of exported) if (d.id) byId.set(`${d.kind} ${d.id}`, address(d));

  const rewrite = referenceRewriter(registry, { plain, byId, vars, notes });

  const docs = exported.map((d) => {
    const k = registry.get(d.kind)!;
    const spec = (walk(model(d), d.spec, specSite(d), rewrite) ?? {}) as JsonObject;
    // A kind tapedeck creates gets its id in the new project from the state; one it cannot create (an ingest, a
    // VOD) names the new project's own by a variable.
    if (d.id === undefined || creatable(k)) return { kind: d.kind, name: d.name, spec };
    const hint = `tapedeck cannot create a ${d.kind}: the id of the new environment's own`;
    return {
      kind: d.kind,
      name: d.name,
      id: vars.name(d.kind, d.id, { address: address(d), path: 'id' }, { by: d.name, hint }),
      spec,
    };
  });
  return { docs, vars: vars.all(), notes };
}

/**
 * A reference's rewriting: a project's or the organization's id is its variable; an id of an exported resource is a
 * reference to it (`${Kind/name.id}`), unless that closes a cycle (each would wait for the other's id); any other
 * is a variable named for what it names. `notes` says where a variable stands for what could not be referenced.
 */
function referenceRewriter(
  registry: Registry,
  known: { plain: Map<string, string>; byId: Map<string, string>; vars: Variables; notes: string[] },
): Visit {
  const { plain, byId, vars, notes } = known;
  const graph = new Map<string, Set<string>>();
  return (ref, value, site) => {
    const named = plain.get(value);
    if (named) return vars.name(named, value, site);
    const kinds = ref.includes('*') ? registry.names() : ref.filter((r) => registry.get(r));
    for (const kind of kinds) {
      const target = byId.get(`${kind} ${value}`);
      if (!target) continue;
      if (reaches(graph, target, site.address)) {
        notes.push(
          `${site.address} ${site.path} refers to ${target}, which refers back to it: written as a variable (set it once ${target} exists, then apply again)`,
        );
        break;
      }
      graph.set(site.address, (graph.get(site.address) ?? new Set()).add(target));
      return `\${${target}.id}`;
    }
    if (!ref.length)
      notes.push(
        `${site.address} ${site.path}: ${JSON.stringify(value)} is not a key of a known form; written as a variable`,
      );
    const what = ref.find((r) => r !== '*' && !registry.get(r)) ?? (kinds.length === 1 ? kinds[0] : 'resource');
    return vars.name(what, value, site);
  };
}

/** What a variable names, in words: `the project`, `asset id`, `ContentType id`. */
const label = (what: string) => (PLAIN.has(what) ? `the ${what}` : `${what.replace(/_/g, ' ')} id`);

/** vars.example.yaml: each variable with its source value, and where the documents use it. */
export function varsExample(vars: PortableVar[], source: string): string {
  const lines = [
    '# What the documents in this directory need from the environment they are applied to (tapedeck export',
    `# --portable). Each value is the one of the project they were exported from (${source}).`,
    "# For a new environment: copy this file, set each value to that environment's, and pass the copy with",
    "# --var-file (or put the values under the environment's vars: in tapedeck.yaml).",
    '# tapedeck does not read this file as documents.',
  ];
  for (const v of vars) {
    const uses =
      v.usedBy.length > 3 ? `${v.usedBy.slice(0, 3).join(', ')} and ${v.usedBy.length - 3} more` : v.usedBy.join(', ');
    lines.push(
      '',
      `# ${label(v.what)}${v.hint ? ` (${v.hint})` : ''}; used by ${uses}`,
      `${v.name}: ${JSON.stringify(v.value)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
