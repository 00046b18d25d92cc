import type { KindDef } from './types.js';

export const videoProtectionRuleset: KindDef = {
  kind: 'VideoProtectionRuleset',
  schema: 'video-protection-ruleset.schema.json',
  seedKey: 'video_protection_rulesets',
  identity: { by: 'id' },
  read: {
    method: 'GET',
    path: '/streaming/video_protection/v1/rulesets/{id}',
    source: 'spec',
    wrapper: 'video_protection_ruleset',
    notFound: 'error',
  },
  list: {
    method: 'GET',
    path: '/streaming/video_protection/v1/rulesets',
    source: 'docs',
    itemsKey: 'video_protection_rulesets',
    scope: ['project_id'],
  },
  create: {
    method: 'POST',
    path: '/streaming/video_protection/v1/rulesets',
    source: 'docs',
    style: 'fields',
    wrapper: 'video_protection_ruleset',
  },
  update: {
    method: 'PATCH',
    path: '/streaming/video_protection/v1/rulesets/{id}',
    source: 'docs',
    style: 'patch',
    idField: 'video_protection_ruleset_id',
    bodyKey: 'video_protection_ruleset',
  },
};
