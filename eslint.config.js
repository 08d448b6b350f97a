// ESLint flat config: the recommended rules without type information (type-aware linting is too
// slow for every `npm test`).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Tests must not wait on the wall clock: they wait for the event they expect, or use fake timers.
const NO_REAL_SLEEP = 'Tests wait for the event they expect (or use fake timers), not for wall-clock time.';

export default tseslint.config(
  {
    ignores: ['dist/', 'web/dist/', 'web/.dist-*/', 'node_modules/', 'coverage/', 'test-artifacts/', 'data/'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Each feature adds its tables to the database's schema (src/shared/db/schema.ts) as an
      // interface that only extends its tables.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // The shipped code is typed through (the database too: src/shared/db/schema.ts); tests and
      // benchmarks read loose JSON.
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['web/src/**'],
    languageOptions: {
      globals: { ...globals.browser },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
    },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['test/**'],
    ignores: ['test/process/**', 'test/support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:timers/promises', message: NO_REAL_SLEEP },
            { name: 'timers/promises', message: NO_REAL_SLEEP },
          ],
          // The process-level tests' sleep is theirs alone.
          patterns: [{ group: ['**/support/processes.js'], importNames: ['sleep'], message: NO_REAL_SLEEP }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout']",
          message: NO_REAL_SLEEP,
        },
        {
          selector: "CallExpression[callee.name='promisify'] > Identifier[name='setTimeout']",
          message: NO_REAL_SLEEP,
        },
      ],
    },
  },
);
