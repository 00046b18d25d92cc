import type { KindDef } from './types.js';

export const banner: KindDef = {
  kind: 'Banner',
  schema: 'banner.schema.json',
  seedKey: 'banners',
  identity: { by: 'id' },
  read: { method: 'GET', path: '/cms/banners/v1/{id}', source: 'spec', wrapper: 'banner', notFound: 'error' },
  create: { method: 'POST', path: '/cms/banners/v1', source: 'docs', style: 'fields', wrapper: 'banner' },
  update: {
    method: 'PATCH',
    path: '/cms/banners/v1/{id}',
    source: 'docs',
    style: 'patch',
    idField: 'banner_id',
    bodyKey: 'banner_update',
  },
};
