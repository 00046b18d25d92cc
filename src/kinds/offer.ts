import type { KindDef } from './types.js';

export const offer: KindDef = {
  kind: 'Offer',
  schema: 'offer.schema.json',
  seedKey: 'offers',
  identity: { by: 'id' },
  read: { method: 'GET', path: '/monetization/offers/v1/{id}', source: 'assumed', wrapper: 'offer', notFound: 'error' },
  list: { method: 'GET', path: '/monetization/offers/v1', source: 'docs', itemsKey: 'offers', scope: ['project_id'] },
  create: { method: 'POST', path: '/monetization/offers/v1', source: 'docs', style: 'fields', wrapper: 'offer' },
  update: {
    method: 'PATCH',
    path: '/monetization/offers/v1/{id}',
    source: 'spec',
    style: 'patch',
    idField: 'offer_id',
    bodyKey: 'offer',
  },
};
