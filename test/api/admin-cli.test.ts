import { execFile, type ExecFileException } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, runAdmin } from '../../infra/admin/commands';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/aws/dynamodb';
import { resourcesConfig } from '../../shared/config';
import { subtreeAgentIds, userIdsOfClient } from '../../shared/store/directory-store';
import type { Emulators } from '../../infra/local/emulators';
import { startTestEmulators } from '../support/emulators';
import { apiClient, login } from './support';
import { directoryKeys } from '../../shared/store/keys';

describe('admin CLI', () => {
  let emulators: Emulators;
  beforeAll(async () => {
    emulators = await startTestEmulators('api-admin');
  });
  afterAll(async () => emulators.stop());

  it('creates a client hierarchy, a user who can log in, and a vehicle', async () => {
    const parent = await runAdmin(['create-client', '--name', 'Acme Fleet']);
    const child = await runAdmin(['create-client', '--name', 'Acme North', '--parent', String(parent.agentId)]);
    expect(await subtreeAgentIds(String(parent.agentId))).toEqual([parent.agentId, child.agentId]);
    const user = await runAdmin([
      'create-user',
      '--client',
      String(child.agentId),
      '--login',
      'north-ops',
      '--password',
      'correct horse',
      '--email',
      'ops@acme.test',
      '--language',
      '1',
      '--read-only',
    ]);
    expect(user).toMatchObject({ login: 'north-ops', parentId: child.agentId, isReadOnly: true, language: 1 });
    expect(JSON.stringify(user)).not.toContain('correct horse');
    const vehicle = await runAdmin(['create-vehicle', '--client', String(child.agentId), '--id', '7001', '--name', 'Truck 7001']);
    expect(vehicle).toEqual({ vehicleId: 7001, name: 'Truck 7001', parentId: child.agentId, outcome: 'created' });
    expect(await runAdmin(['create-vehicle', '--client', String(child.agentId), '--id', '7001', '--name', 'Truck 7001'])).toMatchObject({
      outcome: 'unchanged',
    });
    const token = await login(apiClient(), {
      agentId: String(child.agentId),
      login: 'north-ops',
      password: 'correct horse',
      userId: String(user.id),
    });
    expect(token).toBeTruthy();
  });

  it('links users stored before client links existed to their client, so users/find lists them', async () => {
    const client = await runAdmin(['create-client', '--name', 'Older Fleet']);
    const user = await runAdmin([
      'create-user',
      '--client',
      String(client.agentId),
      '--login',
      'older-ops',
      '--password',
      'long enough',
      '--email',
      'o@older.test',
    ]);
    // the user as stored before links existed
    await documentClient().send(
      new DeleteCommand({ TableName: resourcesConfig().DIRECTORY_TABLE, Key: directoryKeys.userLink(String(client.agentId), String(user.id)) }),
    );
    expect(await userIdsOfClient(String(client.agentId))).toEqual([]);
    expect((await runAdmin(['link-users'])).linked).toBeGreaterThanOrEqual(1);
    expect(await userIdsOfClient(String(client.agentId))).toEqual([user.id]);
  });

  it('explains bad input instead of failing obscurely', async () => {
    await expect(runAdmin(['create-user', '--client', 'nope', '--login', 'x', '--password', 'short', '--email', 'bad'])).rejects.toThrow(UsageError);
    await expect(runAdmin(['create-client', '--name', 'Orphan', '--parent', '9b2f4c1e-8f8a-4a57-9f57-2d6f0f7b2a11'])).rejects.toThrow(
      /does not exist/,
    );
    await expect(runAdmin(['create-client', '--nam', 'typo'])).rejects.toThrow(UsageError);
    await expect(runAdmin(['drop-everything'])).rejects.toThrow(/unknown command/);
    await expect(runAdmin(['toString'])).rejects.toThrow(/unknown command/);
    await expect(runAdmin(['register-telegram-webhook', '--url', 'http://api.example/telegram/webhook'])).rejects.toThrow(/must be https/);
    const client = await runAdmin(['create-client', '--name', 'Twice']);
    const args = ['create-user', '--client', String(client.agentId), '--login', 'same', '--password', 'long enough', '--email', 'a@b.test'];
    await runAdmin(args);
    await expect(runAdmin(args)).rejects.toThrow(/login same is taken/);
  });

  /**
   * What a person has in a fresh shell next to `npm start`: the endpoint and table names, no region, no
   * credentials, nothing of the test process.
   */
  function cleanEnvironment(): NodeJS.ProcessEnv {
    const kept = Object.entries(process.env).filter(([name]) => name.endsWith('_TABLE') || name === 'AWS_ENDPOINT_URL_DYNAMODB');
    return { PATH: process.env.PATH, HOME: process.env.HOME, ...Object.fromEntries(kept) };
  }
  const cli = (args: string[]) => promisify(execFile)('npx', ['tsx', 'infra/admin/cli.ts', ...args], { env: cleanEnvironment(), cwd: process.cwd() });

  it('runs as npm run admin in a clean shell against the local endpoint, printing JSON and never the password', async () => {
    expect(cleanEnvironment().AWS_REGION).toBeUndefined();
    expect(cleanEnvironment().AWS_ENDPOINT_URL_DYNAMODB).toMatch(/^http:\/\/(127\.0\.0\.1|localhost)/);
    const { stdout } = await cli(['create-client', '--name', 'From the shell']);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'From the shell', agentId: expect.any(String) });
    const failure = await cli(['create-user', '--client', 'x']).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('Usage: npm run admin');
  });

  /** The CLI with `input` on its standard input (a pipe, not a terminal), as a script or `echo … |` runs it. */
  const cliWithInput = (args: string[], input: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        'npx',
        ['tsx', 'infra/admin/cli.ts', ...args],
        { env: cleanEnvironment(), cwd: process.cwd() },
        (error: ExecFileException | null, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
      child.stdin!.end(input);
    });

  it('reads the password from standard input with --password-stdin, creating a user who can log in, and never prints it', async () => {
    const client = await runAdmin(['create-client', '--name', 'Piped Fleet']);
    const password = 'piped through stdin 42';
    const created = await cliWithInput(
      ['create-user', '--client', String(client.agentId), '--login', 'piped-ops', '--email', 'p@piped.test', '--password-stdin'],
      `${password}\n`,
    );
    expect(created.code).toBe(0);
    const user = JSON.parse(created.stdout) as { id: string; login: string };
    expect(user.login).toBe('piped-ops');
    expect(created.stdout + created.stderr).not.toContain(password);
    // the line break echo adds is not part of the password
    expect(await login(apiClient(), { agentId: String(client.agentId), login: 'piped-ops', password, userId: user.id })).toBeTruthy();
  });

  it('warns on standard error that --password is unsafe, still without printing the password', async () => {
    const client = await runAdmin(['create-client', '--name', 'Typed Fleet']);
    const password = 'typed on the line 42';
    const created = await cliWithInput(
      ['create-user', '--client', String(client.agentId), '--login', 'typed-ops', '--email', 't@typed.test', '--password', password],
      '',
    );
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/warning: --password puts the password in your shell history/);
    expect(created.stdout + created.stderr).not.toContain(password);
  });

  it('without a password and without a terminal to ask in, refuses and points to --password-stdin', async () => {
    const client = await runAdmin(['create-client', '--name', 'Silent Fleet']);
    const refused = await cliWithInput(['create-user', '--client', String(client.agentId), '--login', 'silent-ops', '--email', 's@silent.test'], '');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/error: a password is needed: .*--password-stdin/);
    expect(await userIdsOfClient(String(client.agentId))).toEqual([]);
    const twice = await cliWithInput(
      [
        'create-user',
        '--client',
        String(client.agentId),
        '--login',
        'silent-ops',
        '--email',
        's@silent.test',
        '--password',
        'long enough',
        '--password-stdin',
      ],
      'long enough\n',
    );
    expect(twice).toMatchObject({ code: 2, stderr: expect.stringMatching(/not both/) });
  });

  it('prints the usage on --help and exits 0', async () => {
    const { stdout, stderr } = await cli(['--help']);
    expect(stdout).toContain('Usage: npm run admin');
    expect(stdout).toContain('import-vehicles');
    expect(stderr).not.toMatch(/error/i);
    expect((await cli(['create-vehicle', '--help'])).stdout).toContain('--move');
  });
});
