// The linter CI runs (`npm run lint`): ESLint's and typescript-eslint's recommended rules (without type information,
// so it stays fast), and the import directions docs/architecture.md draws.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Folders of src/ a folder must not import from (docs/architecture.md, "Imports go one way"). */
const forbidden = {
  plan: ['remote', 'apply', 'cli', 'report', 'emulator'],
  diff: ['remote', 'apply', 'cli', 'report', 'emulator', 'plan'],
  schema: ['remote', 'apply', 'cli', 'report', 'emulator', 'plan', 'diff'],
  report: ['cli', 'apply', 'emulator'],
  remote: ['cli', 'apply', 'emulator'],
  state: ['cli', 'remote', 'apply', 'emulator', 'plan'],
  emulator: ['cli', 'remote', 'apply', 'report', 'plan', 'state'],
  load: ['cli', 'remote', 'apply', 'emulator', 'plan', 'report', 'state'],
};

const boundaries = Object.entries(forbidden).map(([folder, targets]) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: targets.map((t) => ({
        group: [`../${t}/*`, `../../${t}/*`],
        message: `src/${folder}/ imports nothing from src/${t}/ (docs/architecture.md)`,
      })),
    }],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.ci/node/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_',
      }],
      // Sanitising control characters out of server text is the point of those expressions.
      'no-control-regex': 'off',
    },
  },
  // Tests read answers and messages of any shape.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['process', 'Buffer', 'URL', 'performance', 'console', 'setTimeout', 'clearTimeout',
        'setInterval', 'clearInterval', 'setImmediate'].map((g) => [g, 'readonly'])),
    },
  },
  ...boundaries,
);
