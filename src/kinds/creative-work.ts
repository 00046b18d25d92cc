import type { KindDef } from './types.js';

export const creativeWork: KindDef = {
  kind: 'CreativeWork',
  schema: 'creative-work.schema.json',
  seedKey: 'creative_works',
  identity: { by: 'id' },
  read: {
    method: 'GET',
    path: '/cms/creative_works/v1/{id}',
    source: 'docs',
    wrapper: 'creative_work',
    notFound: 'error',
  },
  list: {
    method: 'GET',
    path: '/cms/creative_works/v1',
    source: 'spec',
    itemsKey: 'creative_works',
    scope: ['project_id'],
  },
  create: { method: 'POST', path: '/cms/creative_works/v1', source: 'docs', style: 'fields', wrapper: 'creative_work' },
  update: {
    method: 'PATCH',
    path: '/cms/creative_works/v1/{id}',
    source: 'docs',
    style: 'patch',
    idField: 'creative_work_id',
    bodyKey: 'creative_work_update',
  },
};
