/**
 * Captures everything the process writes to stdout and stderr (Powertools logger and metrics write there
 * through their own Console, console.* as well), optionally keeping it from reaching the terminal.
 */
export interface CapturedOutput {
  /** Everything written since the capture started. */
  text(): string;
  /** Lines that parse as JSON objects (structured logs, EMF metric documents). */
  jsonLines(): Record<string, unknown>[];
  restore(): void;
}

type Write = typeof process.stdout.write;

/** `silent` keeps the output off the terminal; `keep: false` does not store it either (long replays). */
export function captureOutput(options: { silent?: boolean; keep?: boolean } = {}): CapturedOutput {
  const keep = options.keep ?? true;
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((stream) => stream.write);
  streams.forEach((stream, index) => {
    const original = originals[index]!;
    const write = (chunk: unknown, ...rest: unknown[]): boolean => {
      if (keep) chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      if (!options.silent) return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
      const callback = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    };
    stream.write = write as Write;
  });
  // console.* of the test process (vitest may route it elsewhere than the streams)
  const consoleMethods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const originalConsole = consoleMethods.map((name) => console[name]);
  for (const name of consoleMethods) {
    const original = console[name];
    console[name] = (...args: unknown[]) => {
      if (keep) chunks.push(`${args.map((arg) => (typeof arg === 'string' ? arg : safeStringify(arg))).join(' ')}\n`);
      if (!options.silent) original.apply(console, args);
    };
  }
  return {
    text: () => chunks.join(''),
    jsonLines: () =>
      chunks
        .join('')
        .split('\n')
        .flatMap((line) => {
          const trimmed = line.trim();
          if (!trimmed.startsWith('{')) return [];
          try {
            return [JSON.parse(trimmed) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    restore: () => {
      streams.forEach((stream, index) => {
        stream.write = originals[index]!;
      });
      consoleMethods.forEach((name, index) => {
        console[name] = originalConsole[index]!;
      });
    },
  };
}

function safeStringify(value: unknown): string {
  try {
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}

/** Sum of one EMF metric over the captured metric documents (namespace fleetwatch). */
export function metricSum(lines: readonly Record<string, unknown>[], name: string): number {
  let sum = 0;
  for (const line of lines) {
    if (!('_aws' in line)) continue;
    const value = line[name];
    if (typeof value === 'number') sum += value;
    else if (Array.isArray(value)) sum += value.reduce((total: number, item) => total + Number(item), 0);
  }
  return sum;
}
