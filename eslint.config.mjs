import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import wholeConcepts from './scripts/whole-concepts.cjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-bundle/**',
      'node_modules/**',
      'coverage/**',
      '.local/**',
      'build/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  // Files and functions a reader can hold: physical lines, blank lines and comments included, so the
  // limit is what a reader scrolls through (scripts/structure-report.cjs counts the same way).
  {
    files: ['functions/**/*.ts', 'shared/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 250, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': [
        'error',
        { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  // A file that holds one concept whole may be longer, by its own limit and reason (the list says why).
  ...Object.entries(wholeConcepts).map(([file, { lines }]) => ({
    files: [file],
    rules: { 'max-lines': ['error', { max: lines, skipBlankLines: false, skipComments: false }] },
  })),
  // The local stack's start-up is held to the product's function limit too (issue 30).
  {
    files: ['emulators/**/start-stack.ts'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        setInterval: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
