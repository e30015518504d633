// ESLint flat config: typescript-eslint's type-aware recommended rules over the TypeScript tree.
// Formatting is Prettier's job (.prettierrc); nothing here is about layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'data/', 'media/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Off: an `async` function without `await` is how this code meets a Promise-returning contract (Fastify
      // async handlers, courier adapters) and turns a throw into a rejection; the rule would ask for noise.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped JSON (`res.json()`, MCP results) and assert on it: checking that shape is the test's
    // job, so member access on those values is allowed here. Explicit `any` stays an error.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript config files are not in tsconfig: no type information for them.
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
