import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for AWS Secrets Manager that answers GetSecretValue (AWS JSON 1.1 protocol, as the
 * SDK v3 client and Powertools' getSecret call it) for secrets given at start. The local runtime uses it
 * to hand the Telegram bot token to the functions the same way the deployed stack does.
 */
export interface RunningSecrets {
  endpoint: string;
  stop(): Promise<void>;
}

const ARN_PREFIX = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:';

export async function startSecretsEmulator(secrets: Record<string, string>, port = 0): Promise<RunningSecrets> {
  const versions = new Map(Object.keys(secrets).map((name) => [name, randomUUID()]));
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const fail = (status: number, type: string, message: string) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify({ __type: type, message }));
      };
      if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        fail(400, 'UnsupportedOperation', `${String(request.headers['x-amz-target'] ?? 'request')} is not supported locally`);
        return;
      }
      let secretId: string;
      try {
        secretId = String((JSON.parse(body) as { SecretId?: unknown }).SecretId ?? '');
      } catch {
        fail(400, 'InvalidRequestException', 'request body is not JSON');
        return;
      }
      const name = secretId.startsWith(ARN_PREFIX) ? secretId.slice(ARN_PREFIX.length) : secretId;
      const value = secrets[name];
      if (value === undefined) {
        fail(400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          ARN: `${ARN_PREFIX}${name}`,
          Name: name,
          SecretString: value,
          VersionId: versions.get(name),
          VersionStages: ['AWSCURRENT'],
          CreatedDate: Math.floor(Date.now() / 1000),
        }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
