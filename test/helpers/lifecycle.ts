// The lifecycle tests' documents and state: an offer under any name, the documents file rewritten, the state read.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export const premium = (name: string, extra: object = {}) => ({
  kind: 'Offer',
  name,
  ...extra,
  spec: { project_id: 'p', name: 'Premium', priority: 3 },
});
export const write = (dir: string, docs: object[]) =>
  writeFileSync(join(dir, 'a.yaml'), docs.map((d) => stringify(d)).join('---\n'));
export const stateOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8')).resources;
