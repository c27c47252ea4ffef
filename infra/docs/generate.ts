/**
 * `npm run docs:generate`: rewrites the generated regions of docs/rules.md from shared/rules/settings-reference.ts,
 * those of docs/deploy.md from the stack's facts (parameters, context keys, outputs, teardown), the delivery
 * retry schedule in docs/api.md and docs/concepts.md from shared/delivery/retry-backoff.ts, and
 * docs/configuration.md from the configuration schemas.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIGURATION_PAGE, configurationPage } from './configuration';
import { generateRulesPage } from './rules-page';
import { generateDeployPage } from './deploy-page';
import { generateRetryRegions, RETRY_SCHEDULE_PAGES } from './retry-schedule';

const path = join(import.meta.dirname, '../../docs/rules.md');
const page = readFileSync(path, 'utf8');
const generated = generateRulesPage(page);
if (generated !== page) writeFileSync(path, generated);
console.log(generated === page ? 'docs/rules.md is up to date' : 'docs/rules.md rewritten');

const deployPath = join(import.meta.dirname, '../../docs/deploy.md');
const deployPage = readFileSync(deployPath, 'utf8');
const deployGenerated = generateDeployPage(deployPage);
if (deployGenerated !== deployPage) writeFileSync(deployPath, deployGenerated);
console.log(deployGenerated === deployPage ? 'docs/deploy.md is up to date' : 'docs/deploy.md rewritten');

for (const name of RETRY_SCHEDULE_PAGES) {
  const retryPath = join(import.meta.dirname, '../..', name);
  const retryPage = readFileSync(retryPath, 'utf8');
  const retryGenerated = generateRetryRegions(retryPage, name);
  if (retryGenerated !== retryPage) writeFileSync(retryPath, retryGenerated);
  console.log(retryGenerated === retryPage ? `${name} is up to date` : `${name} rewritten`);
}

const configuration = configurationPage();
const committed = readFileSync(CONFIGURATION_PAGE, 'utf8');
if (configuration !== committed) writeFileSync(CONFIGURATION_PAGE, configuration);
console.log(configuration === committed ? 'docs/configuration.md is up to date' : 'docs/configuration.md rewritten');
