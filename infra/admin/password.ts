import { text } from 'node:stream/consumers';
import { read } from 'read';

/**
 * Where `create-user` gets the password from. A password typed on the command line is visible to other users
 * of the machine (the process list) and stays in the shell history, so the CLI asks for it at a prompt that
 * does not echo, or reads it from standard input (`--password-stdin`, for scripts and secret managers).
 * `--password` still works, with a warning. The password is never printed.
 */
export const PASSWORD_OPTION_WARNING =
  'warning: --password puts the password in your shell history and in the process list; leave it out to be asked for it, or use --password-stdin\n';

export class PasswordInputError extends Error {}

export interface PasswordOptions {
  password?: string;
  'password-stdin'?: boolean;
}

export interface Terminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

const processTerminal: Terminal = { stdin: process.stdin, stderr: process.stderr };

export async function passwordFrom(options: PasswordOptions, terminal: Terminal = processTerminal): Promise<string> {
  if (options.password !== undefined && options['password-stdin'])
    throw new PasswordInputError('give the password once: --password-stdin or --password, not both');
  if (options.password !== undefined) {
    terminal.stderr.write(PASSWORD_OPTION_WARNING);
    return options.password;
  }
  // one line, as `echo`, `printf` and secret managers' CLIs write it; the line break is not part of the password
  if (options['password-stdin']) return (await text(terminal.stdin)).replace(/\r?\n$/, '');
  if (!terminal.stdin.isTTY) {
    throw new PasswordInputError('a password is needed: run in a terminal to be asked for it, or pipe it in with --password-stdin');
  }
  const ask = (prompt: string) => read({ prompt, silent: true, replace: '', input: terminal.stdin, output: terminal.stderr });
  const password = await ask('Password: ');
  const again = await ask('Password again: ');
  // the silent prompt ends without a line break; what follows starts on a line of its own
  terminal.stderr.write('\n');
  if (again !== password) throw new PasswordInputError('the two passwords differ');
  return password;
}
