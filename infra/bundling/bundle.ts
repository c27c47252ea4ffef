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

/**
 * Where a function's SDK clients come from. `bundled`: the package holds the clients a cold start or a batch needs
 * (DynamoDB, SQS), built from their ES modules like the rest of its code: a cold start then loads one file instead
 * of the runtime's CommonJS SDK (hundreds of files, each resolved, read and compiled; 40–70 ms of each cold start).
 * `runtime`: every client comes from Lambda's runtime, for a package whose budget has no room for them.
 */
export type SdkSource = 'bundled' | 'runtime';

/**
 * The clients a package that bundles the SDK still leaves to the runtime: each is loaded on first use only (a
 * channel's first message, the first address lookup, a metric read), so bundled they would add to the package
 * what no cold start runs.
 */
const FIRST_USE_SDK_CLIENTS: readonly string[] = [
  '@aws-sdk/client-sesv2',
  '@aws-sdk/client-sns',
  '@aws-sdk/client-pinpoint-sms-voice-v2',
  '@aws-sdk/client-geo-places',
  '@aws-sdk/client-cloudwatch',
];

// esbuild's ESM output has no `require`; CommonJS dependencies bundled into it need one.
const ESM_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * How esbuild builds one function's package from its entry (relative to `projectRoot`): `index.mjs`, exporting the
 * handler, and the chunks beside it. Code reached only through `await import()` goes to its own chunk, so a cold
 * start neither runs nor parses it (the api's routes other than login and rules, deliver's grammy, the numbering
 * plan's reader); code both sides use goes to a shared chunk, loaded once. `sdk` says which SDK clients the
 * package holds (SdkSource).
 */
export function bundleOptions(entry: string, projectRoot: string, sdk: SdkSource): BuildOptions & { outdir: string } {
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
    external: sdk === 'bundled' ? [...FIRST_USE_SDK_CLIENTS] : ['@aws-sdk/*'],
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
function bundlePackage(entry: string, sdk: SdkSource, projectRoot: string, outdir: string, copies: readonly PackageCopy[]): void {
  // buildSync throws on any error, naming the file and line
  buildSync({ ...bundleOptions(entry, projectRoot, sdk), outdir });
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
 * container: splitting into chunks needs its build API. The entry, the SDK's source and the copies are fields so
 * that they key the synth's cache of bundles, which compares the options' JSON: without them, every function would
 * get the first function's package.
 */
export class PackageBundling implements BundlingOptions {
  readonly image: DockerImage = Runtime.NODEJS_24_X.bundlingImage;
  readonly local: ILocalBundling;

  constructor(
    readonly entry: string,
    readonly sdk: SdkSource,
    readonly copies: readonly PackageCopy[],
    projectRoot: string,
  ) {
    this.local = {
      tryBundle: (outputDir) => {
        bundlePackage(entry, sdk, projectRoot, outputDir, copies);
        return true;
      },
    };
  }
}
