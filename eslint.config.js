// @ts-check
import js from '@eslint/js';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', '.test-dist/**', '.dev-build*/**', 'packages/*/dist/**', 'packages/*/needs-typescript-*.d.ts', 'generated/**', 'node_modules/**', 'bench/results/**', 'test-artifacts/**', 'coverage/**'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The rules that need types, on the code that runs the service or ships (not the tests and
    // benches): what they catch there is a promise nobody awaits or handles (an error or a write
    // lost) and an untyped value (JSON, a loose library type) reaching code as if it were typed. In
    // the tests vitest awaits a forgotten assertion at the test's end, and the untyped-value rules
    // were off. Their program (tsconfig.lint.json) leaves out the tests, the benches and the types
    // only they import: a clean run takes about half the CPU and memory of one over the whole tree.
    // `npm run lint` keeps a cache (.eslintcache, by content): a file whose text and config did not
    // change is not linted again, so a finding that another file's edit causes in it shows on a
    // clean run (CI, or `npx eslint .`).
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts', 'examples/**/*.ts', 'scripts/**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeCheckedOnly],
    languageOptions: { parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // Plain-Node scripts: those that must run before the build and without the devDependencies
    // (scripts/build.mjs), and the benches' and tests' child processes and preloads that run on plain
    // node (bench/**/*.mjs, test/**/*.mjs).
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', 'test/**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly' } },
  },
  {
    // The overlay's page script, served to browsers as it is (no build step).
    files: ['examples/overlay/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: { document: 'readonly', location: 'readonly', EventSource: 'readonly', URLSearchParams: 'readonly' } },
  },
  {
    // src/lib: small utilities every layer may import, so they import nothing else of ours.
    files: ['src/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['../*'], message: 'src/lib imports nothing outside src/lib.' }] }],
    },
  },
  {
    // The packages ship without the service: each imports only itself, the codegen output it ships
    // and its dependencies. oauth2 ← client ← the service: the OAuth2 package imports neither the
    // client nor the service; the client imports no server code.
    files: ['packages/oauth2/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../../../*', '!../../../generated'], message: 'a package imports nothing of the service (only generated/ at the top).' },
            { group: ['@channel-graph/*'], message: '@channel-graph/oauth2 depends on nothing else of ours.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../../../*', '!../../../generated'], message: 'a package imports nothing of the service (only generated/ at the top).' },
            { group: ['@channel-graph/client', '@channel-graph/client/*'], message: 'inside the package, import its modules by relative path.' },
          ],
        },
      ],
    },
  },
  {
    files: ['schema/**/*.graphql', 'examples/*/schema/**/*.graphql'],
    languageOptions: { parser: graphqlPlugin.parser },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      '@graphql-eslint/require-description': ['error', { types: true, FieldDefinition: true, rootField: true }],
      '@graphql-eslint/description-style': ['error', { style: 'inline' }],
      '@graphql-eslint/strict-id-in-types': 'off',
      '@graphql-eslint/naming-convention': 'off',
    },
  },
  {
    files: ['packages/client/operations/**/*.graphql'],
    languageOptions: { parser: graphqlPlugin.parser },
    plugins: { '@graphql-eslint': graphqlPlugin },
    rules: graphqlPlugin.configs['flat/operations-recommended'].rules,
  },
);
