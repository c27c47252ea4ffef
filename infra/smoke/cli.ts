import { smoke } from './run';

process.exitCode = await smoke(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
