// All kinds, in the order their levels apply (a kind may only depend on kinds listed before it, by default),
// and the one place where a user's endpoint overrides are applied.
import { resourceModel, type Field } from '../schema/model.js';
import type { KindDef } from './types.js';
import { policy } from './policy.js';
import { contentType } from './content-type.js';
import { offer } from './offer.js';
import { standingPhase } from './standing-phase.js';
import { creativeWork } from './creative-work.js';
import { rtmpIngest } from './rtmp-ingest.js';
import { streamingConfiguration } from './streaming-configuration.js';
import { videoProtectionRuleset } from './video-protection-ruleset.js';
import { actionConfiguration } from './action-configuration.js';
import { vod } from './vod.js';
import { banner } from './banner.js';
import { event } from './event.js';

export const builtinKinds: readonly KindDef[] = [
  contentType,
  event,
  creativeWork,
  standingPhase,
  rtmpIngest,
  vod,
  banner,
  streamingConfiguration,
  videoProtectionRuleset,
  offer,
  actionConfiguration,
  policy,
];

export type EndpointName = 'read' | 'list' | 'create' | 'duplicate' | 'update';
/** kind -> endpoint name -> replacement path (and method) */
export type EndpointOverrides = Record<string, Partial<Record<EndpointName, { path?: string; method?: string }>>>;

export class Registry {
  private readonly byKind: Map<string, KindDef>;
  constructor(readonly kinds: readonly KindDef[]) {
    this.byKind = new Map(kinds.map((k) => [k.kind, k]));
  }
  get(kind: string): KindDef | undefined {
    return this.byKind.get(kind);
  }
  names(): string[] {
    return this.kinds.map((k) => k.kind);
  }
  /** Kind order used to break ties inside a dependency wave, so plans are stable. */
  level(kind: string): number {
    return this.kinds.findIndex((k) => k.kind === kind);
  }
}

/**
 * The registry with the user's overrides applied. Only endpoints that are not in the API spec can be overridden:
 * they are our reading of the platform's docs or our assumption, and a user's platform may differ.
 * Returns the problems instead of throwing so they can be reported with the project file's positions.
 */
export function withOverrides(overrides: EndpointOverrides = {}): { registry: Registry; problems: string[] } {
  const problems: string[] = [];
  const kinds = builtinKinds.map((k) => {
    const o = overrides[k.kind];
    if (!o) return k;
    const copy: KindDef = structuredClone(k);
    for (const [name, change] of Object.entries(o) as [EndpointName, { path?: string; method?: string }][]) {
      const ep = copy[name];
      if (!ep) problems.push(`${k.kind} has no ${name} endpoint to override`);
      else if (ep.source === 'spec')
        problems.push(`${k.kind}.${name} is fixed by the API spec and cannot be overridden`);
      else Object.assign(ep, change);
    }
    return copy;
  });
  for (const kind of Object.keys(overrides)) {
    if (!builtinKinds.some((k) => k.kind === kind)) problems.push(`unknown kind ${kind} in endpoint overrides`);
  }
  return { registry: new Registry(kinds), problems };
}

export const defaultRegistry = new Registry(builtinKinds);

/** The field model of a change's kind: its own schema (writes carry it), else the built-in kind's (a drifted noop
 *  names only its kind). */
export function changeModel(c: { kind: string; schema?: string }): Field | undefined {
  const schema = c.schema ?? defaultRegistry.get(c.kind)?.schema;
  return schema ? resourceModel(schema) : undefined;
}
