// The `yaml` library, loaded the first time a file needs it: the quick reader (quick-yaml.ts, js-yaml) reads the
// documents of a configuration, so most runs never need the full parser, whose loading is a large part of a start.
// It is CommonJS under Node, so it loads synchronously, and is the same module an `import` would give.
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);
let lib: typeof Yaml | undefined;

export const yamlLib = (): typeof Yaml => (lib ??= require('yaml') as typeof Yaml);
