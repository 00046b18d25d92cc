import type { KindDef } from './types.js';

export const contentType: KindDef = {
  kind: 'ContentType',
  schema: 'content-type.schema.json',
  seedKey: 'content_types',
  identity: { by: 'id' },
  read: {
    method: 'GET', path: '/cms/types/v1/{id}', source: 'docs', wrapper: 'type', notFound: 'error',
    query: { base_type: 'spec.base_type', project_id: 'spec.project_id' },
  },
  update: {
    method: 'PATCH', path: '/cms/types/v1', source: 'spec', style: 'patch', bodyKey: 'type', idInResource: true,
    extra: { base_type: 'spec.base_type' },
  },
};
