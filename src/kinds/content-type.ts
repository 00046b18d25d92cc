import type { KindDef } from './types.js';

export const contentType: KindDef = {
  kind: 'ContentType',
  schema: 'content-type.schema.json',
  seedKey: 'content_types',
  identity: { by: 'id' },
  read: {
    method: 'GET',
    path: '/cms/types/v1/{id}',
    source: 'docs',
    wrapper: 'type',
    notFound: 'error',
    query: { base_type: 'spec.base_type', project_id: 'spec.project_id' },
  },
  create: { method: 'POST', path: '/cms/types/v1', source: 'docs', style: 'fields', wrapper: 'type' },
  list: { method: 'GET', path: '/cms/types/v1', source: 'docs', itemsKey: 'types', scope: ['project_id', 'base_type'] },
  update: {
    method: 'PATCH',
    path: '/cms/types/v1',
    source: 'spec',
    style: 'patch',
    bodyKey: 'type',
    idInResource: true,
    extra: { base_type: 'spec.base_type' },
  },
};
