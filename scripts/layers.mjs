// The folders of src/ in layers, lowest first (`.` is src/ itself: types.ts, errors.ts, version.ts)
// (docs/architecture.md, "Imports go one way"): a module imports only from its own folder and from folders of lower
// layers; folders of one layer do not import each other. run/ composes a run (options, check, plan, apply) for both
// front ends: the agent and the CLI, which parses flags, renders, and starts every command, the agent's among them.
// Read by eslint.config.js (no-restricted-imports) and by test/unit/import-graph.test.ts (the whole graph).
export const layers = [
  ['schema'],
  ['.'],
  ['util'],
  ['diff'],
  ['kinds'],
  ['load'],
  ['validate'],
  ['resolve'],
  ['state', 'project'],
  ['budget'],
  ['remote'],
  ['live'],
  ['plan'],
  ['rules', 'windows'],
  ['apply'],
  ['report'],
  ['adopt', 'emulator'],
  ['run'],
  ['agent'],
  ['cli'],
];

/** The layers' index of each folder. */
export const layerOf = new Map(layers.flatMap((folders, i) => folders.map((f) => [f, i])));

/** Folders `folder` may not import from: every folder of its own layer but itself, and every folder above. */
export function forbiddenFrom(folder) {
  const mine = layerOf.get(folder);
  return [...layerOf].filter(([f, i]) => f !== '.' && f !== folder && i >= mine).map(([f]) => f);
}
