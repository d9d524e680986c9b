import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'data',
      '.test-pg',
      'dist',
      'bench/results',
      'dashboard/dist',
      'sdk/dist',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  { files: ['scripts/**', 'bench/**'], rules: { 'no-console': 'off' } },
  // The simulators check the provider adapters: they share no code with them (issue 23),
  // each side reads the provider's protocol on its own (test/unit/architecture.imports.test.ts
  // holds the same rule for type-only and dynamic imports).
  {
    files: ['src/simulators/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/providers/*', '**/providers'],
              message: 'the simulators share no code with the provider adapters (issue 23)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/providers/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/simulators/*', '**/simulators'],
              message: 'the provider adapters share no code with the simulators (issue 23)',
            },
          ],
        },
      ],
    },
  },
);
