import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundlingOptions, DockerImage, ILocalBundling } from 'aws-cdk-lib';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { buildSync, type BuildOptions } from 'esbuild';

const NODE_HTTP_MODULE = fileURLToPath(new URL('./node-http.ts', import.meta.url));

/**
 * Module aliases of every bundle. grammy's node-fetch reaches for Node's deprecated built-in punycode (DEP0040 at
 * every cold start); the userland package of the same name is what it needs. The same node-fetch imports whatwg-url
 * only as the fallback for a Node.js without `url.URL` (`Url.URL || whatwgUrl.URL`): Node's own url module stands
 * in for it, which keeps whatwg-url's tr46 tables (~290 KB) out of the deliver and telegram bundles. `node:http`
 * comes through ./node-http.ts, which spares each cold start the load of Node's fetch.
 */
const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  punycode: 'punycode/',
  'whatwg-url': 'node:url',
  http: NODE_HTTP_MODULE,
  'node:http': NODE_HTTP_MODULE,
};

/** The runtime the bundles are built for, and where esbuild looks first in a package (its ES module build). */
const BUNDLE_TARGET = 'node24';
const BUNDLE_MAIN_FIELDS: readonly string[] = ['module', 'main'];

/** Where a package keeps the code its entry loads with `await import()`, and the code shared with it. */
const CHUNKS_DIR = 'chunks';

// esbuild's ESM output has no `require`; CommonJS dependencies bundled into it need one.
const ESM_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * How esbuild builds one function's package from its entry (relative to `projectRoot`): `index.mjs`, exporting the
 * handler, and the chunks beside it. Code reached only through `await import()` goes to its own chunk, so a cold
 * start neither runs nor parses it (the api's routes other than login and rules, deliver's grammy, the numbering
 * plan's reader); code both sides use goes to a shared chunk, loaded once. The SDK is left to Lambda's runtime.
 */
export function bundleOptions(entry: string, projectRoot: string): BuildOptions & { outdir: string } {
  return {
    entryPoints: { index: entry },
    absWorkingDir: projectRoot,
    outdir: '.',
    bundle: true,
    splitting: true,
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    chunkNames: `${CHUNKS_DIR}/[name]-[hash]`,
    platform: 'node',
    target: BUNDLE_TARGET,
    mainFields: [...BUNDLE_MAIN_FIELDS],
    external: ['@aws-sdk/*'],
    alias: { ...BUNDLE_ALIASES },
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    // no keepNames: the source maps name every frame of a stack trace already, and the errors set their own
    // names; keeping them wrapped every function in a call at load and added 4–5% to each bundle
    keepNames: false,
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
  };
}

/** A file or folder of the project copied into a package, beside the code. */
export interface PackageCopy {
  /** Relative to the project root. */
  from: string;
  /** Relative to the package. */
  to: string;
}

/** Builds one function's package into `outdir`: its code (bundleOptions) and the files it reads beside it. */
function bundlePackage(entry: string, projectRoot: string, outdir: string, copies: readonly PackageCopy[]): void {
  // buildSync throws on any error, naming the file and line
  buildSync({ ...bundleOptions(entry, projectRoot), outdir });
  for (const copy of copies) cpSync(join(projectRoot, copy.from), join(outdir, copy.to), { recursive: true });
}

/** The JavaScript files of a package: its entry, then every chunk. */
export function packageCodeFiles(packageDir: string): string[] {
  const chunksDir = join(packageDir, CHUNKS_DIR);
  const chunks = existsSync(chunksDir) ? readdirSync(chunksDir).map((file) => join(chunksDir, file)) : [];
  return [join(packageDir, 'index.mjs'), ...chunks.filter((file) => file.endsWith('.mjs'))];
}

/** Bytes of JavaScript in a package, what the bundle budgets count. */
export function packageCodeBytes(packageDir: string): number {
  return packageCodeFiles(packageDir).reduce((bytes, file) => bytes + statSync(file).size, 0);
}

/**
 * The bundling of one function's package as CDK's asset staging takes it. esbuild runs in this process, never in a
 * container: splitting into chunks needs its build API. The entry and the copies are fields so that they key the
 * synth's cache of bundles, which compares the options' JSON: without them, every function would get the first
 * function's package.
 */
export class PackageBundling implements BundlingOptions {
  readonly image: DockerImage = Runtime.NODEJS_24_X.bundlingImage;
  readonly local: ILocalBundling;

  constructor(
    readonly entry: string,
    readonly copies: readonly PackageCopy[],
    projectRoot: string,
  ) {
    this.local = {
      tryBundle: (outputDir) => {
        bundlePackage(entry, projectRoot, outputDir, copies);
        return true;
      },
    };
  }
}
