// The state as stored: resources in address order, so a diff of two versions shows only what changed.
import type { StateData } from './data.js';

export const STATE_FORMAT = 1;

/** The addresses in the order they are stored in. */
const inStoredOrder = (resources: StateData['resources']) => Object.keys(resources).sort((a, b) => (a < b ? -1 : 1));

/** The stored document as one object (the database's row, a comparison of two states). */
export function stateDocument(data: StateData): object {
  const sorted = Object.fromEntries(inStoredOrder(data.resources).map((a) => [a, data.resources[a]]));
  const { lineage, serial, configuration, platform, moved_to } = data;
  return { format_version: STATE_FORMAT, lineage, serial, configuration, platform, moved_to, resources: sorted };
}

/** How many characters of text a piece holds before it is handed out (the file is written piece by piece). */
const PIECE = 64 * 1024;

/**
 * The state file's text (`JSON.stringify(stateDocument(data), null, 2)` and a newline, to the byte) in pieces, one
 * resource at a time: a large state's whole text would be made again at every write of an apply.
 */
export function* stateText(data: StateData): Generator<string> {
  const { lineage, serial, configuration, platform, moved_to, resources } = data;
  const head = JSON.stringify(
    { format_version: STATE_FORMAT, lineage, serial, configuration, platform, moved_to, resources: {} },
    null,
    2,
  );
  const addresses = inStoredOrder(resources);
  if (!addresses.length) return yield `${head}\n`;
  // The head ends with `"resources": {}` and the closing brace: the entries go between that pair of braces.
  let piece = `${head.slice(0, head.lastIndexOf('{}'))}{\n`;
  for (let i = 0; i < addresses.length; i++) {
    const entry = JSON.stringify(resources[addresses[i]], null, 2).replace(/\n/g, '\n    ');
    piece += `    ${JSON.stringify(addresses[i])}: ${entry}${i < addresses.length - 1 ? ',' : ''}\n`;
    if (piece.length < PIECE) continue;
    yield piece;
    piece = '';
  }
  yield `${piece}  }\n}\n`;
}
