import type { KindDef } from './types.js';

export const vod: KindDef = {
  kind: 'Vod',
  schema: 'vod.schema.json',
  seedKey: 'vods',
  identity: { by: 'id' },
  read: { method: 'GET', path: '/streaming/vods/v1/{id}', source: 'assumed', wrapper: 'vod', notFound: 'error' },
  update: {
    method: 'PATCH',
    path: '/streaming/vods/v1/{id}',
    source: 'spec',
    style: 'patch',
    idField: 'vod_id',
    bodyKey: 'vod',
  },
};
