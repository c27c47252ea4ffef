import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Which test files make the unit ring (`npm run test:unit`): those that need no emulator and no JVM. A file
 * belongs to the emulator ring when anything it imports, directly or through its support modules, reaches the
 * emulators (DynamoDB Local, fauxqs, aws-ses-v2-local) or the test run's shared DynamoDB Local, or when it runs
 * the local stack as a process. In-process loopback stand-ins (the Telegram Bot API fake, the secrets stand-in)
 * start in milliseconds and need no JVM: they stay in the unit ring. Derived from the
 * sources each time the configuration loads, so a new test file lands in the right ring without a list to keep.
 */
const EMULATOR_MODULES = ['infra/local/emulators.ts', 'infra/local/dynamodb-local.ts', 'test/support/emulators.ts', 'test/support/global-setup.ts'];
const EMULATOR_PACKAGES = /^(fauxqs|aws-ses-v2-local|dynamodb-local)(\/|$)/;
/** The shared DynamoDB Local by name, or the local stack run as a process (`npm start`: DynamoDB Local's JVM). */
const EMULATOR_TEXT = /inject\(\s*['"]dynamoEndpoint['"]\s*\)|spawn\(\s*['"]npm['"]\s*,\s*\[\s*['"]start['"]|infra\/local\/start(\.ts)?['"]/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function testFiles(root: string, folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(path.join(root, folder))) {
    const relative = path.posix.join(folder, name);
    if (statSync(path.join(root, relative)).isDirectory()) found.push(...testFiles(root, relative));
    else if (name.endsWith('.test.ts')) found.push(relative);
  }
  return found.sort();
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, base, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Whether a source file, or anything it imports from the project, reaches the emulators. */
function makeReachesEmulators(root: string): (file: string) => boolean {
  const markers = new Set(EMULATOR_MODULES.map((module) => path.join(root, module)));
  // per file: whether it names the emulators itself, and the project files it imports
  const parsed = new Map<string, { direct: boolean; imports: string[] }>();
  const parse = (file: string) => {
    let entry = parsed.get(file);
    if (entry === undefined) {
      const source = readFileSync(file, 'utf8');
      entry = { direct: markers.has(file) || EMULATOR_TEXT.test(source), imports: [] };
      for (const match of source.matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2] ?? match[3]!;
        if (EMULATOR_PACKAGES.test(specifier)) entry.direct = true;
        const target = specifier.startsWith('.') ? resolveImport(file, specifier) : undefined;
        if (target !== undefined && !target.includes(`${path.sep}node_modules${path.sep}`)) entry.imports.push(target);
      }
      parsed.set(file, entry);
    }
    return entry;
  };
  return (file) => {
    const seen = new Set([file]);
    const pending = [file];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const { direct, imports } = parse(next);
      if (direct) return true;
      for (const target of imports) {
        if (seen.has(target)) continue;
        seen.add(target);
        pending.push(target);
      }
    }
    return false;
  };
}

export interface TestRings {
  unit: string[];
  emulator: string[];
}

/** The project's test files (under test/, relative to `root`), split into the unit ring and the emulator ring. */
export function testRings(root: string, excluded: (file: string) => boolean = () => false): TestRings {
  const reaches = makeReachesEmulators(root);
  const rings: TestRings = { unit: [], emulator: [] };
  for (const file of testFiles(root, 'test')) {
    if (excluded(file)) continue;
    (reaches(path.join(root, file)) ? rings.emulator : rings.unit).push(file);
  }
  return rings;
}
