// The linter CI runs (`npm run lint`): ESLint's and typescript-eslint's recommended rules (without type information,
// so it stays fast), and the layers of src/ (scripts/layers.mjs, as docs/architecture.md draws them).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { forbiddenFrom, layerOf } from './scripts/layers.mjs';

const boundaries = [...layerOf.keys()]
  .filter((f) => f !== '.')
  .map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: forbiddenFrom(folder).map((t) => ({
            group: [`../${t}/*`, `../../${t}/*`],
            message: `src/${folder}/ imports nothing from src/${t}/ (scripts/layers.mjs, docs/architecture.md)`,
          })),
        },
      ],
    },
  }));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.ci/node/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Sanitising control characters out of server text is the point of those expressions.
      'no-control-regex': 'off',
    },
  },
  // Tests read answers and messages of any shape.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'Buffer',
          'URL',
          'performance',
          'console',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
  ...boundaries,
);
