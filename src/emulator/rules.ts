// The platform's rules that go beyond field shapes, per collection: what the spec and the docs state.
import type { JsonObject } from '../schema/values.js';
import { actionConfigurationProblems } from '../kinds/action-references.js';
import { ApiFault, bad } from './fault.js';
import type { ListRules } from './list.js';

type Check = (resource: JsonObject, others: Iterable<JsonObject>) => void;

interface CollectionRules {
  /** fields a create must carry, beyond the schema's x-create-required */
  required?: string[];
  /** checked on every create and update, against the other stored resources of the collection */
  check?: Check;
  /** a read of something never set answers an empty resource instead of 404 */
  emptyOnMissing?: boolean;
  list?: ListRules;
}

/** "There can only be one default configuration per type" (per project). */
const oneDefaultPerType: Check = (r, others) => {
  if (r.default !== true) return;
  for (const o of others) {
    if (o.id !== r.id && o.default === true && o.project_id === r.project_id && o.type === r.type) {
      throw new ApiFault(
        'failed_precondition',
        `configuration ${String(o.id)} is already the default ${String(r.type)} of project ${String(r.project_id)}`,
      );
    }
  }
};

const contentSearch = ['title', 'description'];
const namedList: ListRules = { orderBy: ['name'], search: ['name', 'description'] };

export const collectionRules: Record<string, CollectionRules> = {
  // The platform lists a workflow's configurations with `workflow_id:`; the emulator has no workflows, so no
  // configuration is attached to one and the field reads as unset (`workflow_id:w1` keeps none).
  configurations: {
    required: ['project_id', 'name'],
    check: oneDefaultPerType,
    list: { ...namedList, unsetFilterFields: ['workflow_id'] },
  },
  policies: { required: ['policy'] },
  action_configurations: {
    required: ['configuration'],
    emptyOnMissing: true,
    check: (r) => {
      const problems = actionConfigurationProblems(r.configuration);
      if (problems.length) throw bad(problems.map(([, m]) => m).join('; '));
    },
  },
  offers: { list: namedList },
  video_protection_rulesets: { list: namedList },
  creative_works: { list: { orderBy: ['title', 'release_time'], search: contentSearch } },
  events: { list: { orderBy: ['title', 'start_time'], search: contentSearch } },
};
