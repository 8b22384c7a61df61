// Lint rules that keep the architecture honest: the policy stays pure and the workflow sandbox
// stays deterministic by rule, not by review; no promise is dropped on the floor; no import circles.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'util'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.agentd/**', 'workflow-bundle-*'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's describe/it return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // No import circles anywhere in src/, test/, bench/ or harness/. Imports of types only are erased by tsc
    // and cannot form a circle at run time, so the rule does not follow them.
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: ['src/policy/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'src/policy is pure: no I/O.' },
            { group: ['@temporalio/*', 'openai', 'gpt-tokenizer', 'better-sqlite3'], message: 'src/policy imports only zod.' },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Time enters the policy as an argument.' },
        { object: 'Math', property: 'random', message: 'The policy is deterministic.' },
      ],
    },
  },
  {
    files: ['src/tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../config', '../../config', '../worker/sandboxFromConfig', '../../worker/sandboxFromConfig'],
              message: 'Tools take plain settings; the config is read above them (see src/worker/sandboxFromConfig.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/session/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'Workflow code runs in the deterministic sandbox: I/O belongs in activities.' },
            { group: ['openai', 'gpt-tokenizer', 'better-sqlite3', '@temporalio/activity', '@temporalio/client', '@temporalio/worker'], message: 'Not in workflow code.' },
            {
              group: ['../store/*', '../tools/*', '../model/tokens', '../model/client', '../activities/!(types)'],
              message: 'Workflow code imports only types from I/O modules (import type).',
              allowTypeImports: true,
            },
          ],
          paths: [{ name: '../activities', message: 'Workflow code imports activity types only.', allowTypeImports: true }],
        },
      ],
    },
  },
);
