import type { KindDef } from './types.js';

export const streamingConfiguration: KindDef = {
  kind: 'StreamingConfiguration',
  schema: 'streaming-configuration.schema.json',
  seedKey: 'configurations',
  identity: { by: 'natural', fields: ['project_id', 'type', 'name'] },
  read: {
    method: 'GET',
    path: '/streaming/configurations/v1/{id}',
    source: 'docs',
    wrapper: 'configuration',
    notFound: 'error',
  },
  list: {
    method: 'GET',
    path: '/streaming/configurations/v1',
    source: 'docs',
    itemsKey: 'configurations',
    scope: ['project_id'],
  },
  create: {
    method: 'POST',
    path: '/streaming/configurations/v1',
    source: 'spec',
    style: 'fields',
    wrapper: 'configuration',
  },
  uniqueWhen: [
    {
      when: 'default',
      fields: ['project_id', 'type'],
      message: 'a second default configuration of the same project and type',
    },
  ],
  update: {
    method: 'PATCH',
    path: '/streaming/configurations/v1/{id}',
    source: 'docs',
    style: 'patch',
    idField: 'configuration_id',
    bodyKey: 'configuration',
  },
};
