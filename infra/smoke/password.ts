import { createInterface } from 'node:readline';
import { read } from 'read';

/**
 * The login's password: the first line of standard input with `--password-stdin` (for scripts and secret
 * managers), otherwise asked at a prompt that does not echo. A password on the command line would be visible in
 * the process list and the shell history, so there is no option for it. The password is never printed.
 */
export class PasswordInputError extends Error {}

export interface PasswordTerminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

export async function loginPassword(login: string, fromStdin: boolean, terminal: PasswordTerminal): Promise<string> {
  if (fromStdin) return firstLine(terminal.stdin);
  if (!terminal.stdin.isTTY) {
    throw new PasswordInputError('a password is needed: run in a terminal to be asked for it, or pipe it in with --password-stdin');
  }
  const password = await read({ prompt: `Password of ${login}: `, silent: true, replace: '', input: terminal.stdin, output: terminal.stderr });
  // the silent prompt ends without a line break; the report starts on a line of its own
  terminal.stderr.write('\n');
  if (password === '') throw new PasswordInputError('no password given');
  return password;
}

async function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input: stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') break;
    return line;
  }
  throw new PasswordInputError('--password-stdin: the first line of standard input is empty');
}
