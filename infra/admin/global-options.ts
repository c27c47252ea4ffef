import { parseArgs } from 'node:util';

/** Options of the CLI itself rather than of a command; they may stand anywhere on the command line. */
export interface GlobalOptions {
  /** Name of a deployed fleetwatch stack whose outputs name the tables and queues. */
  stack?: string;
  region?: string;
  /** The command line without them. */
  argv: string[];
}

export class GlobalOptionError extends Error {}

export function takeGlobalOptions(argv: readonly string[]): GlobalOptions {
  const { tokens } = parseArgs({
    args: [...argv],
    options: { stack: { type: 'string' }, region: { type: 'string' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const taken = new Set<number>();
  const found: { stack?: string; region?: string } = {};
  for (const token of tokens) {
    if (token.kind !== 'option' || (token.name !== 'stack' && token.name !== 'region')) continue;
    if (!token.value || token.value.startsWith('-')) throw new GlobalOptionError(`--${token.name} needs a value`);
    found[token.name] = token.value;
    taken.add(token.index);
    if (!token.inlineValue) taken.add(token.index + 1);
  }
  return { ...found, argv: argv.filter((_, index) => !taken.has(index)) };
}
