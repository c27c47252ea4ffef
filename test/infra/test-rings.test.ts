import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testRings } from '../../.config/test-rings';

/** The split between `npm run test:unit` and the emulator tests, derived from what each file imports. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('test rings', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'fleetwatch-rings-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** Writes a source file; « stands for a quote, so that the fixtures' imports are not this file's own. */
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    writeFileSync(path.join(scratch, file), text.replaceAll('«', "'"));
  };

  it("puts the project's emulator tests in the emulator ring and the pure ones in the unit ring", () => {
    const rings = testRings(ROOT);
    expect(rings.emulator).toEqual(
      expect.arrayContaining([
        'test/api/notification-settings.test.ts',
        'test/pipeline/evaluate.test.ts',
        'test/delivery/deliver.test.ts',
        'test/local/npm-start.test.ts',
      ]),
    );
    expect(rings.unit).toEqual(
      expect.arrayContaining([
        'test/pipeline/evaluate-vehicle.test.ts',
        'test/rules/rule-index.test.ts',
        'test/infra/stack.test.ts',
        'test/delivery/templates.test.ts',
      ]),
    );
    expect(rings.unit.filter((file) => rings.emulator.includes(file))).toEqual([]);
  });

  it('follows imports through support modules, re-exports and dynamic imports, and knows the emulator packages', () => {
    write('test/support/emulators.ts', 'export const sharedDynamoEndpoint = () => "";\n');
    write('test/a/support.ts', 'import { sharedDynamoEndpoint } from «../support/emulators«;\nexport const endpoint = sharedDynamoEndpoint;\n');
    write('test/a/through-support.test.ts', 'import { endpoint } from «./support«;\n');
    write('test/a/reexport.ts', 'export * from «./support.js«;\n');
    write('test/a/through-reexport.test.ts', 'import { endpoint } from «./reexport«;\n');
    write('test/a/dynamic.test.ts', 'const { endpoint } = await import(«./support«);\n');
    write('test/a/fauxqs.test.ts', 'import { startFauxqs } from «fauxqs«;\n');
    write('test/a/injected.test.ts', 'import { inject } from «vitest«;\nconst endpoint = inject(«dynamoEndpoint«);\n');
    write('test/a/pure.ts', 'import { z } from «zod«;\nexport const pure = z.string();\n');
    write('test/a/pure.test.ts', 'import { pure } from «./pure«;\nimport type { endpoint } from «./types-only«;\n');
    write('test/a/cycle-a.ts', 'import «./cycle-b«;\n');
    write('test/a/cycle-b.ts', 'import «./cycle-a«;\nimport «./support«;\n');
    write('test/a/cycle.test.ts', 'import «./cycle-a«;\n');
    expect(testRings(scratch)).toEqual({
      unit: ['test/a/pure.test.ts'],
      emulator: [
        'test/a/cycle.test.ts',
        'test/a/dynamic.test.ts',
        'test/a/fauxqs.test.ts',
        'test/a/injected.test.ts',
        'test/a/through-reexport.test.ts',
        'test/a/through-support.test.ts',
      ],
    });
  });
});
