import type { KindDef } from './types.js';

export const policy: KindDef = {
  kind: 'Policy',
  schema: 'policy.schema.json',
  seedKey: 'policies',
  identity: { by: 'key', field: 'resource_key' },
  read: { method: 'GET', path: '/iam/auth/v1/policies/{key}', source: 'docs', notFound: 'empty' },
  update: { method: 'PUT', path: '/iam/auth/v1/policies/{key}', source: 'spec', style: 'replace', carry: ['etag'] },
};
