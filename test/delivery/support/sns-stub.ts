import { InvalidParameterException, type SNSClient } from '@aws-sdk/client-sns';

/**
 * SNS has no local emulator: this stub sits in the real SNS client's middleware stack and answers commands
 * without a network call, recording what fleetwatch asked SNS to do. `failFor` makes Publish to an endpoint
 * fail with the named SNS error. Endpoints keep their attributes as SNS does: CreatePlatformEndpoint for a
 * token whose endpoint has another `CustomUserData` is refused with SNS's InvalidParameter message, which
 * names the existing endpoint; Get/SetEndpointAttributes read and change them.
 */
export interface SnsCall {
  command: string;
  input: Record<string, unknown>;
}

export class SnsStub {
  readonly calls: SnsCall[] = [];
  /** Attributes of each endpoint, by ARN. */
  readonly endpoints = new Map<string, Record<string, string>>();
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
          const endpointArn = `arn:aws:sns:us-east-1:000000000000:endpoint/${app}/${String(input.Token)}`;
          const attributes = { Token: String(input.Token), Enabled: 'true', CustomUserData: String(input.CustomUserData ?? '') };
          const existing = this.endpoints.get(endpointArn);
          if (existing && existing.CustomUserData !== attributes.CustomUserData) {
            throw new InvalidParameterException({
              message: `Invalid parameter: Token Reason: Endpoint ${endpointArn} already exists with the same Token, but different attributes.`,
              $metadata: { httpStatusCode: 400 },
            });
          }
          if (!existing) this.endpoints.set(endpointArn, attributes);
          return { output: { EndpointArn: endpointArn, $metadata: {} }, response: {} };
        }
        if (command === 'GetEndpointAttributes') {
          return { output: { Attributes: this.endpoints.get(String(input.EndpointArn)), $metadata: {} }, response: {} };
        }
        if (command === 'SetEndpointAttributes') {
          const endpointArn = String(input.EndpointArn);
          this.endpoints.set(endpointArn, { ...this.endpoints.get(endpointArn), ...(input.Attributes as Record<string, string>) });
        }
        return { output: { $metadata: {} }, response: {} };
      },
      { step: 'initialize', name: 'fleetwatchSnsStub' },
    );
  }

  uninstall(client: SNSClient): void {
    client.middlewareStack.remove('fleetwatchSnsStub');
  }

  failFor(endpointArn: string, name: string, message: string): void {
    this.failures.set(endpointArn, { name, message });
  }
}
