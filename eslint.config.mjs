// ESLint: the recommended rules of ESLint and typescript-eslint (without type
// information, so a run takes seconds), with Prettier owning the layout.
// npm test runs it (npm run lint); CONTRIBUTING.md says how to fix what it finds.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.tap/',
      'reports/',
      'race-report/',
      'data/',
      'data-demo/',
      'bench-data/',
      '.scratch/',
      '.stryker-tmp/',
      'contracts/openapi.json',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_` names what a destructuring or a callback leaves out on purpose.
      // Control characters are what several patterns are about: XML's forbidden ones, PostgreSQL's NUL, a serial frame's bytes.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['server/console/web/**/*.ts', 'server/pay/web/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
