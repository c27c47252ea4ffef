import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Secrets Manager's GetSecretValue on 127.0.0.1 (no emulator is installed), spoken to by the
 * real SDK client through AWS_ENDPOINT_URL_SECRETS_MANAGER, so that the Powertools parameters path runs as
 * deployed.
 */
export class FakeSecretsManager {
  private server: Server | undefined;
  readonly secrets = new Map<string, string>();
  reads = 0;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        const target = request.headers['x-amz-target'];
        const { SecretId } = JSON.parse(raw || '{}') as { SecretId?: string };
        const secret = SecretId === undefined ? undefined : this.secrets.get(SecretId);
        response.setHeader('content-type', 'application/x-amz-json-1.1');
        if (target !== 'secretsmanager.GetSecretValue' || secret === undefined) {
          response.statusCode = 400;
          response.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }));
          return;
        }
        this.reads++;
        response.end(
          JSON.stringify({
            ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${SecretId}`,
            Name: SecretId,
            SecretString: secret,
            VersionId: '1',
            CreatedDate: 0,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
