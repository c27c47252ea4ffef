import { cleanup } from './run';

process.exitCode = await cleanup(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
