import { allSchemas } from '../schema/model.js';
import type { KindDef } from './types.js';

/** The documented forms of a resource key, as the schema says them (its pattern also takes ${Kind/name.id}). */
let forms: RegExp | undefined;
const keyForms = () =>
  (forms ??= new RegExp(allSchemas().get('policy.schema.json')!.$defs.resource.properties.resource_key.pattern, 'u'));

/** What the schema cannot say: a project's key names the project twice (<project>/<project>/project). */
function projectKeyProblem(key: string): string | undefined {
  const [id, project, type] = key.split('/');
  if (type !== 'project' || id === project || `${id}${project}`.includes('${')) return undefined;
  return `"${key}" names two projects: a project's resource key is <project>/<project>/project (${project}/${project}/project?)`;
}

/** Why the platform refuses a resource key, or undefined (the emulator's check). */
export function resourceKeyProblem(key: string): string | undefined {
  return keyForms().test(key) ? projectKeyProblem(key) : `malformed resource_key "${key}"`;
}

export const policy: KindDef = {
  kind: 'Policy',
  schema: 'policy.schema.json',
  seedKey: 'policies',
  identity: { by: 'key', field: 'resource_key' },
  read: { method: 'GET', path: '/iam/auth/v1/policies/{key}', source: 'docs', notFound: 'empty' },
  update: { method: 'PUT', path: '/iam/auth/v1/policies/{key}', source: 'spec', style: 'replace', carry: ['etag'] },
  checks: [
    (spec) => {
      const problem = typeof spec.resource_key === 'string' ? projectKeyProblem(spec.resource_key) : undefined;
      return problem ? [['resource_key', `spec.resource_key: ${problem}`]] : [];
    },
  ],
};
