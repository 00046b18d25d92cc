import type { KindDef } from './types.js';

export const event: KindDef = {
  kind: 'Event',
  schema: 'event.schema.json',
  seedKey: 'events',
  identity: { by: 'id' },
  read: { method: 'GET', path: '/cms/events/v1/{id}', source: 'docs', wrapper: 'event', notFound: 'error' },
  createdFrom: 'duplicate_from',
  list: { method: 'GET', path: '/cms/events/v1', source: 'docs', itemsKey: 'events', scope: ['project_id'] },
  // From its fields (the platform's public docs), or by duplicating another event (operation 13): a document
  // with `duplicate_from`.
  create: { method: 'POST', path: '/cms/events/v1', source: 'docs', style: 'fields', wrapper: 'event' },
  duplicate: {
    method: 'POST',
    path: '/cms/events/v1/{source}/duplicate',
    source: 'spec',
    style: 'duplicate',
    wrapper: 'event',
    idField: 'event_id',
    bodyKey: 'event',
    placeholder: '%@',
  },
  update: {
    method: 'PATCH',
    path: '/cms/events/v1/{id}',
    source: 'spec',
    style: 'patch',
    idField: 'event_id',
    bodyKey: 'event_update',
  },
};
