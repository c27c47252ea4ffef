import { contextSchema } from '../context';
import { DEPLOY_PARAMETERS } from '../constructs/deploy-parameters';
import { OUTPUT_DESCRIPTIONS, TABLE_OUTPUTS, TEARDOWN } from '../stack-facts';
import { cell, table } from './schema-table';

/**
 * The generated regions of docs/deploy.md, `<!-- generated:deploy:<name> -->` … `<!-- /generated -->`, written
 * from the facts the stack itself is built from: its parameters, context keys, outputs and what `cdk destroy`
 * leaves. Everything outside them is written by hand and left as it is.
 */
const REGION = /(<!-- generated:deploy:(\w+) -->\n)[\s\S]*?(<!-- \/generated -->)/g;

export function parametersTable(): string[] {
  const rows = Object.entries(DEPLOY_PARAMETERS).map(([name, parameter]) => {
    const fallback = 'default' in parameter ? (parameter.default === '' ? 'empty' : `\`${parameter.default}\``) : '**required**';
    return `| \`${name}\` | ${fallback} | ${cell(parameter.description)} |`;
  });
  return ['| Parameter | Default | Meaning |', '|---|---|---|', ...rows];
}

function outputsTable(): string[] {
  const tables = new Set(Object.values(TABLE_OUTPUTS));
  const rows = Object.entries(OUTPUT_DESCRIPTIONS)
    .filter(([output]) => !tables.has(output))
    .map(([output, description]) => `| \`${output}\` | ${cell(description)} |`);
  const tableRow = `| ${[...tables].map((output) => `\`${output}\``).join(', ')} | the six tables (for the admin CLI and \`redrive\`) |`;
  return ['| Output | Holds |', '|---|---|', ...rows, tableRow];
}

function teardownTable(): string[] {
  const rows = TEARDOWN.map((row) => `| ${cell(row.what)} | ${cell(row.onDestroy)} | ${row.cleanup ? cell(row.cleanup) : ''} |`);
  return ['| Resource | On `cdk destroy` | `npm run cleanup` |', '|---|---|---|', ...rows];
}

const REGIONS: Record<string, () => string[]> = {
  parameters: parametersTable,
  context: () => table(contextSchema, 'Key'),
  outputs: outputsTable,
  teardown: teardownTable,
};

/** The page with every generated region rewritten. Fails when a region is missing or unknown. */
export function generateDeployPage(page: string): string {
  const seen = new Set<string>();
  const generated = page.replace(REGION, (_match, open: string, name: string, close: string) => {
    const region = REGIONS[name];
    if (!region) throw new Error(`docs/deploy.md has a generated region ${name}, which the generator does not know`);
    seen.add(name);
    return `${open}\n${region().join('\n')}\n\n${close}`;
  });
  const missing = Object.keys(REGIONS).filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`docs/deploy.md lacks the generated regions ${missing.join(', ')}`);
  return generated;
}
