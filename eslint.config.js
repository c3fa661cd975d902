// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // A base method whose parameter only an override reads names it `_slot`.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**'],
    rules: {
      // V8 creates an object literal that has a getter or setter in dictionary mode: each one carries its own
      // property dictionary, allocated where young-generation collections do not free it (measured with
      // bench/probes/gcPromotion.ts: ~1 KB per wait when the wake hub's tickets were such literals).
      'no-restricted-syntax': [
        'error',
        {
          selector: "ObjectExpression > Property[kind='get'], ObjectExpression > Property[kind='set']",
          message: 'An object literal with an accessor is a dictionary-mode object in V8: use a class.',
        },
      ],
    },
  },
  {
    files: ['marbles/**', 'test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // NestJS's API: modules are empty decorated classes, and its option bags are declared as classes.
    files: ['test/nestjs/**', 'marbles/nestjs/**', 'examples/nestjs/**'],
    rules: {
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // examples/ import 'rxlock' by its package name, which resolves to the built dist/ (absent before the build that
  // npm test runs after lint). Their types are checked by test/typing/docsExamples.test.ts against the source.
  { files: ['examples/**'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
