import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// a function's bundle must load only the SDK clients it uses: one module per service, never the barrel
const sdkBarrel = { regex: '(^|/)aws/clients$', message: 'Import the client of one service (aws/dynamodb, aws/sqs, aws/ses, aws/sns).' };

// the floors of shared/, bottom first: a module imports from its own floor or lower ones, never higher
const FLOORS = [
  ['config', 'aws', 'observability', 'schemas'],
  ['geo'],
  ['rules'],
  ['auth'],
  ['store'],
  ['queues'],
  ['channels'],
  ['delivery', 'pipeline'],
  ['sweep'],
  ['api'],
];

function importRules() {
  return [
    { files: ['functions/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [sdkBarrel] }] } },
    ...FLOORS.map((floor, level) => {
      const higher = FLOORS.slice(level + 1).flat();
      const patterns = [sdkBarrel];
      if (higher.length > 0) {
        patterns.push({
          regex: `^(\\.\\./)+(${higher.join('|')})/`,
          message: `shared/${floor.join(', shared/')} may not import from a higher floor (${higher.join(', ')}).`,
        });
      }
      return { files: floor.map((folder) => `shared/${folder}/**/*.ts`), rules: { 'no-restricted-imports': ['error', { patterns }] } };
    }),
  ];
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', '.local/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...importRules(),
  // formatting is Prettier's job; no lint rule may fight it
  prettier,
);
