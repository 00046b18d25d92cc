import type { KindDef } from './types.js';

export const standingPhase: KindDef = {
  kind: 'StandingPhase',
  schema: 'standing-phase.schema.json',
  seedKey: 'standing_phases',
  identity: { by: 'id' },
  read: {
    method: 'GET',
    path: '/cms/standing_phases/v1/{id}',
    source: 'assumed',
    wrapper: 'standing_phase',
    notFound: 'error',
  },
  create: {
    method: 'POST',
    path: '/cms/standing_phases/v1',
    source: 'docs',
    style: 'fields',
    wrapper: 'standing_phase',
  },
  update: {
    method: 'PATCH',
    path: '/cms/standing_phases/v1/{id}',
    source: 'spec',
    style: 'patch',
    idField: 'standing_phase_id',
    bodyKey: 'standing_phase',
  },
};
