import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleOptions } from '../../infra/bundling/bundle';
import { sdkSource, type FunctionName } from '../../infra/constructs/fleetwatch-function';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What a function's cold start evaluates: the modules its handler reaches through static imports (and CommonJS
 * requires), as esbuild bundles it for the stack. A module reached only through `await import()` is evaluated
 * when first needed, from its own chunk. SDK clients come from the package or the runtime as the stack has it (sdkSource).
 */
async function coldStartModules(name: FunctionName): Promise<{ eager: Set<string>; all: Set<string>; outputs: Metafile['outputs'] }> {
  const entry = `functions/${name}/handler.ts`;
  const { metafile } = await build({ ...bundleOptions(entry, ROOT, sdkSource(name)), write: false, metafile: true, logLevel: 'silent' });
  const inputs: Metafile['inputs'] = metafile.inputs;
  const eager = new Set([entry]);
  for (const path of eager) {
    for (const edge of inputs[path]?.imports ?? []) {
      if ((edge.kind === 'import-statement' || edge.kind === 'require-call') && !edge.external) eager.add(edge.path);
    }
  }
  return { eager, all: new Set(Object.keys(inputs)), outputs: metafile.outputs };
}

/** Packages and modules each function's cold start must not evaluate: each is needed by a few requests only. */
const LOADED_ON_FIRST_USE: Partial<Record<FunctionName, string[]>> = {
  // libphonenumber-js (phone routes), the OpenAPI generator (its document), HTML templates (link pages), the
  // webhook address checks (webhook routes), the schemas of routes other than login and rules, the alert record's
  // schemas (history and alert routes), the vehicle state's (vehicle routes)
  api: [
    'node_modules/libphonenumber-js/',
    'node_modules/@asteasolutions/zod-to-openapi/',
    'node_modules/eta/',
    'node_modules/ipaddr.js/',
    'shared/api/directory-schemas.ts',
    'shared/api/rota-schemas.ts',
    'shared/api/silence-schemas.ts',
    'shared/api/history-schemas.ts',
    'shared/api/geozone-schemas.ts',
    'shared/api/channel-schemas.ts',
    'shared/schemas/alert.ts',
    'shared/schemas/vehicle-state.ts',
  ],
  // libphonenumber-js and SMS prices (the first SMS), grammy (the first Telegram message)
  deliver: ['node_modules/libphonenumber-js/', 'shared/channels/sms/prices.ts', 'node_modules/grammy/'],
};

// one build per function, for both checks
const builds = new Map<FunctionName, ReturnType<typeof coldStartModules>>();
const modulesOf = (name: FunctionName) => builds.get(name) ?? builds.set(name, coldStartModules(name)).get(name)!;

describe("functions' cold starts", () => {
  describe.each(Object.entries(LOADED_ON_FIRST_USE))('%s', (name, deferred) => {
    it('evaluates none of the modules only a few requests need, which its bundle still holds', async () => {
      const { eager, all } = await modulesOf(name as FunctionName);
      for (const module of deferred) {
        expect(
          [...all].some((path) => path.includes(module)),
          `${module} is in the bundle`,
        ).toBe(true);
        expect(
          [...eager].filter((path) => path.includes(module)),
          `${module} is evaluated at cold start`,
        ).toEqual([]);
      }
    });

    it('does not even parse them at cold start: they sit in chunks its entry loads with the first request that needs them', async () => {
      const { outputs } = await modulesOf(name as FunctionName);
      const loaded = new Set(['index.mjs']);
      for (const file of loaded) {
        for (const edge of outputs[file]!.imports) if (edge.kind === 'import-statement' && !edge.external) loaded.add(edge.path);
      }
      const parsed = [...loaded].flatMap((file) => Object.keys(outputs[file]!.inputs));
      expect(parsed.length).toBeGreaterThan(0);
      for (const module of deferred)
        expect(
          parsed.filter((path) => path.includes(module)),
          `${module} is parsed at cold start`,
        ).toEqual([]);
    });

    // the numbering plan ships beside the bundle (PHONE_PLAN_FILE): compiled in, V8 would parse it at each cold start
    it("holds none of libphonenumber-js's numbering plans", async () => {
      const { all } = await modulesOf(name as FunctionName);
      expect([...all].filter((path) => /node_modules\/libphonenumber-js\/(metadata|min|max|mobile)\b/.test(path))).toEqual([]);
    });
  });
});

const FUNCTIONS: FunctionName[] = ['evaluate', 'sweep', 'deliver', 'api', 'telegram', 'project'];

describe('every package', () => {
  it.each(FUNCTIONS)('%s takes its SDK clients from where sdkSource says', async (name) => {
    const { all, outputs } = await modulesOf(name);
    const runtimeSdk = Object.values(outputs).flatMap((output) =>
      output.imports.filter((edge) => edge.external && edge.path.startsWith('@aws-sdk/')),
    );
    const bundled = [...all].filter((path) => path.includes('node_modules/@aws-sdk/client-dynamodb/'));
    if (sdkSource(name) === 'runtime') {
      expect(runtimeSdk.map((edge) => edge.path)).toContain('@aws-sdk/lib-dynamodb');
      expect(bundled).toEqual([]);
      return;
    }
    // DynamoDB from the package; whatever the runtime gives (a channel's client), only on first use
    expect(bundled.length).toBeGreaterThan(0);
    expect(runtimeSdk.filter((edge) => edge.kind !== 'dynamic-import')).toEqual([]);
  });

  it.each(FUNCTIONS)("%s imports node:http the way CommonJS does (an ES module import of it loads Node's fetch at each cold start)", async (name) => {
    const { outputs } = await modulesOf(name);
    const imports = Object.values(outputs).flatMap((output) => output.imports.filter((edge) => edge.external).map((edge) => edge.path));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((path) => path === 'http' || path === 'node:http')).toEqual([]);
  });
});
