/**
 * `npm run lint:openapi`: writes the OpenAPI document the API serves to a temporary file and lints it with Spectral
 * (`.config/spectral.yaml`), failing on any warning.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiJson } from './openapi-json';

const root = join(import.meta.dirname, '../..');
const folder = mkdtempSync(join(tmpdir(), 'fleetwatch-openapi-'));
const document = join(folder, 'openapi.json');
try {
  writeFileSync(document, openApiJson());
  const spectral = spawnSync(
    join(root, 'node_modules/.bin/spectral'),
    ['lint', document, '--ruleset', join(root, '.config/spectral.yaml'), '--fail-severity=warn'],
    { stdio: 'inherit' },
  );
  process.exitCode = spectral.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
