import type { SNSClient } from '@aws-sdk/client-sns';

/**
 * SNS has no local emulator: this stub sits in the real SNS client's middleware stack and answers commands
 * without a network call, recording what fleetwatch asked SNS to do. `failFor` makes Publish to an endpoint
 * fail with the named SNS error.
 */
export interface SnsCall {
  command: string;
  input: Record<string, unknown>;
}

export class SnsStub {
  readonly calls: SnsCall[] = [];
  private readonly failures = new Map<string, { name: string; message: string }>();

  install(client: SNSClient): void {
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const command = String(context.commandName).replace(/Command$/, '');
        this.calls.push({ command, input });
        if (command === 'Publish') {
          const failure = this.failures.get(String(input.TargetArn));
          if (failure) throw Object.assign(new Error(failure.message), { name: failure.name, $metadata: { httpStatusCode: 400 } });
          return { output: { MessageId: `m-${this.calls.length}`, $metadata: {} }, response: {} };
        }
        if (command === 'CreatePlatformEndpoint') {
          const app = String(input.PlatformApplicationArn).split(':').pop();
          return {
            output: { EndpointArn: `arn:aws:sns:us-east-1:000000000000:endpoint/${app}/${String(input.Token)}`, $metadata: {} },
            response: {},
          };
        }
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'initialize', name: 'fleetwatchSnsStub' },
    );
  }

  failFor(endpointArn: string, name: string, message: string): void {
    this.failures.set(endpointArn, { name, message });
  }
}
