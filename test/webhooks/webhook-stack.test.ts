import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FleetwatchStack } from '../../infra/stack';

type FunctionResource = { Properties: { Environment?: { Variables?: Record<string, unknown> }; Description?: string } };

/** The deployed stack never lets webhooks reach private addresses, and gives deliver what the backoff needs. */
describe('webhooks in the deployed stack', () => {
  let functions: FunctionResource[];

  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const template = Template.fromStack(new FleetwatchStack(app, 'WebhookStack'));
    functions = Object.values(template.findResources('AWS::Lambda::Function')) as FunctionResource[];
  });

  it('sets WEBHOOK_ALLOW_PRIVATE_TARGETS on no function', () => {
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) expect(fn.Properties.Environment?.Variables ?? {}).not.toHaveProperty('WEBHOOK_ALLOW_PRIVATE_TARGETS');
  });

  it("gives the deliver function the deliveries queue's URL, for a webhook retry's own backoff", () => {
    const deliver = functions.find((fn) => fn.Properties.Description?.includes('signed webhooks'));
    expect(deliver?.Properties.Environment?.Variables).toHaveProperty('DELIVERIES_QUEUE_URL');
  });
});
