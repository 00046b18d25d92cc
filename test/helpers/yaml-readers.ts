// The two YAML readers in one shape, for the differential tests of the fast reader against `yaml`
// (test/unit/fast-yaml*.test.ts).
import { parseSimple, Unsupported } from '../../src/load/fast-yaml.js';
import { unsupported } from '../../src/load/yaml-scalars.js';
import { parseWithYaml } from '../../src/load/load.js';
import type { Issue } from '../../src/types.js';

/**
 * What the fast reader makes of `text`: the values and document indexes (positions come from `yaml` by document
 * index, so the indexes must agree too), or 'refused' when it leaves the file or one of its documents to `yaml`.
 */
export function fast(text: string) {
  try {
    const read = parseSimple(text);
    const docs = read.flatMap((d) => ('value' in d ? (d.value === null ? [] : [d]) : unsupported('a document')));
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
