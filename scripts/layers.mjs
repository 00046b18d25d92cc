// The folders of src/ in layers, lowest first (`.` is src/ itself: types.ts, errors.ts, version.ts) (docs/architecture.md, "Imports go one way"): a module imports only
// from its own folder and from folders of lower layers. Folders of one layer do not import each other, except the
// commands' layer (cli/ wires the agent's command; the agent runs plan and apply through cli/'s pipeline).
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
  ['remote'],
  ['plan'],
  ['rules', 'windows'],
  ['apply'],
  ['report'],
  ['adopt', 'emulator'],
  ['cli', 'agent'],
];

/** The layers' index of each folder. */
export const layerOf = new Map(layers.flatMap((folders, i) => folders.map((f) => [f, i])));

/** Folders `folder` may not import from: every folder of its own layer but itself (commands excepted) and above. */
export function forbiddenFrom(folder) {
  const mine = layerOf.get(folder);
  const top = layers.length - 1;
  return [...layerOf]
    .filter(([f, i]) => f !== '.' && f !== folder && (i > mine || (i === mine && mine !== top)))
    .map(([f]) => f);
}
