import type { KindDef } from './types.js';
import { actionConfigurationProblems } from './action-references.js';
import type { Json } from '../schema/values.js';

export const actionConfiguration: KindDef = {
  kind: 'ActionConfiguration',
  schema: 'action-configuration.schema.json',
  seedKey: 'action_configurations',
  identity: { by: 'key', field: 'annotation_type_id' },
  read: { method: 'GET', path: '/annotations/types/v1/{key}/action_configuration', source: 'docs', notFound: 'empty' },
  checks: [
    (spec) =>
      actionConfigurationProblems(spec.configuration as Json).map(([action, m]) => [`configuration.${action}`, m]),
  ],
  update: {
    method: 'POST',
    path: '/annotations/types/v1/{key}/action_configuration',
    source: 'spec',
    style: 'replace',
    idempotent: true,
  },
};
