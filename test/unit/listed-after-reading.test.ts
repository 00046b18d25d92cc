// What of the lists outlives the reading: only the live resources a uniqueness rule can clash with (the defaults),
// not every configuration of the project (at 100,000 documents, 12,500 of them held for the whole plan).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer } from '../../src/emulator/routes.js';
import { Store } from '../../src/emulator/store.js';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { loadDir } from '../../src/load/load.js';
import type { Caller } from '../../src/remote/client.js';
import { readLive } from '../../src/live/read-live.js';
import { planReads } from '../../src/live/read-plan.js';
import { State } from '../../src/state/state.js';
import { validateDocuments } from '../../src/validate/validate.js';
import { tempDir } from '../helpers/tmp.js';

const config = (id: string, name: string, isDefault: boolean) =>
  `  - { id: ${id}, project_id: p1, name: ${name}, type: CONFIGURATION_TYPE_AUTOMATED_TAGGING, default: ${isDefault} }\n`;

describe('the lists after reading', () => {
  it('keep only the resources a rule can clash with', async () => {
    const dir = tempDir('tapedeck-listed-');
    const live = `configurations:\n${config('c1', 'One', false)}${config('c2', 'Two', true)}${config('c3', 'Three', false)}`;
    writeFileSync(
      join(dir, 'doc.yaml'),
      'kind: StreamingConfiguration\nname: new-default\nspec:\n  project_id: p1\n  name: New\n  type: CONFIGURATION_TYPE_AUTOMATED_TAGGING\n  default: true\n',
    );
    const store = new Store();
    store.seed(live, 'live.yaml');
    const caller: Caller = {
      call: async (method, path, body) => ({ status: 200, body: answer(store, method, path, body).body }),
    };
    const { docs: sources } = loadDir(dir, dir);
    const { docs, issues } = validateDocuments(sources, defaultRegistry);
    expect(issues).toEqual([]);
    const state = State.load(join(dir, 'state.json'));
    const { liveListed, failures } = await readLive(planReads(docs, defaultRegistry, state), caller, state, {
      concurrency: 2,
    });
    expect(failures).toEqual([]);
    expect(liveListed(defaultRegistry.get('StreamingConfiguration')!).map((r) => r.id)).toEqual(['c2']);
  });
});
