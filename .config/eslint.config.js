import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// a function's bundle must load only the SDK clients it uses: one module per service, never the barrel
const sdkBarrel = { regex: '(^|/)aws/clients$', message: 'Import the client of one service (aws/dynamodb, aws/sqs, aws/ses, aws/sns).' };

// DynamoDB in one room: only shared/store (and shared/aws, which builds the client) touches the document client
const OWNS_DOCUMENT_CLIENT = ['aws', 'store'];
const documentClientImport = {
  regex: '(^|/)aws/dynamodb$',
  message:
    'Only shared/store may use the DynamoDB document client: read and write through a store function (shared/store/dynamo.ts for the helpers).',
};

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

// the floors above pipeline reach it through its narrow public entries (shared/pipeline/public/), never its internals;
// one entry per use, so that an API route loaded on first use does not pull the whole evaluate path in with it
const ABOVE_PIPELINE = ['sweep', 'api'];
const pipelineInternals = {
  regex: '^(\\.\\./)+pipeline/(?!public/)',
  message: 'Import the pipeline through an entry of shared/pipeline/public/ (add the name there), never its internals.',
};

function importRules() {
  return [
    { files: ['functions/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [sdkBarrel, documentClientImport] }] } },
    ...FLOORS.flatMap((floor, level) => {
      const higher = FLOORS.slice(level + 1).flat();
      return floor.map((folder) => {
        const patterns = [sdkBarrel];
        if (!OWNS_DOCUMENT_CLIENT.includes(folder)) patterns.push(documentClientImport);
        if (ABOVE_PIPELINE.includes(folder)) patterns.push(pipelineInternals);
        if (higher.length > 0) {
          patterns.push({
            regex: `^(\\.\\./)+(${higher.join('|')})/`,
            message: `shared/${floor.join(', shared/')} may not import from a higher floor (${higher.join(', ')}).`,
          });
        }
        return { files: [`shared/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
      });
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
