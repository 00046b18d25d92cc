// The two YAML readers in one shape, for the differential tests of the quick reader (js-yaml) against `yaml`
// (test/unit/quick-yaml*.test.ts).
import { parseQuick, Unsupported } from '../../src/load/quick-yaml.js';
import { parseWithYaml } from '../../src/load/load.js';
import type { Issue } from '../../src/types.js';

/**
 * What the quick reader makes of `text`: the values and document indexes (positions come from `yaml` by document
 * index, so the indexes must agree too), or 'refused' when it leaves the file or one of its documents to `yaml`.
 */
export function quick(text: string) {
  try {
    const read = parseQuick(text);
    if (read.some((d) => !('value' in d))) return 'refused';
    const docs = read.flatMap((d) => ('value' in d && d.value !== null && d.value !== undefined ? [d] : []));
    return { values: docs.map((d) => d.value), indexes: docs.map((d) => d.index), issues: [] as Issue[] };
  } catch (e) {
    if (e instanceof Unsupported) return 'refused';
    throw e;
  }
}

/** What the `yaml` library makes of `text`, in the same shape. */
export function full(text: string) {
  const issues: Issue[] = [];
  const docs = parseWithYaml(text, 'f.yaml', issues);
  return { values: docs.map((d) => d.value), indexes: docs.map((d) => d.index), issues };
}
