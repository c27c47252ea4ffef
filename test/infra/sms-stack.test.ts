import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { FleetwatchStack } from '../../infra/stack';

const IDENTITY = 'arn:aws:sms-voice:eu-central-1:111122223333:pool/pool-0123456789abcdef';
const SMS_CONTEXT = { smsCountries: 'AZ,GE', smsOriginationIdentity: IDENTITY, smsMonthlyCapUsd: '40' };

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };

/** The stack with SMS turned on: cdk-nag stays clean, and only the origination identity and configuration set may send. */
describe('FleetwatchStack with SMS', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...SMS_CONTEXT } });
  const stack = new FleetwatchStack(app, 'FleetwatchSms');
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
  const resources = Object.values(template.Resources);
  const smsStatements = resources
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('sms-voice:')));

  it('builds the configuration set with its events going to SNS', () => {
    const sets = resources.filter((resource) => resource.Type === 'AWS::SMSVOICE::ConfigurationSet');
    expect(sets).toHaveLength(1);
    const [destination] = sets[0]!.Properties.EventDestinations as { MatchingEventTypes: string[]; SnsDestination?: unknown }[];
    expect(destination!.MatchingEventTypes).toEqual(expect.arrayContaining(['TEXT_DELIVERED', 'TEXT_TTL_EXPIRED']));
    expect(destination!.SnsDestination).toBeDefined();
  });

  it('lets deliver and api send only SendTextMessage, from the identity with the configuration set', () => {
    expect(smsStatements).toHaveLength(2);
    for (const statement of smsStatements) {
      expect([statement.Action].flat()).toEqual(['sms-voice:SendTextMessage']);
      const resourcesOf = JSON.stringify(statement.Resource);
      expect(resourcesOf).toContain(IDENTITY);
      expect(resourcesOf).toContain('configuration-set/');
      expect(resourcesOf).not.toContain('*');
    }
  });

  it('reports no cdk-nag finding', () => {
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(app);
    expect(
      report.violations.map((violation) => `${violation.ruleName} at ${violation.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });

  it("points deliver's public links at -c publicApiUrl (a custom domain, short enough for the SMS link), else at the ApiUrl", () => {
    const linksOf = (context: Record<string, string>, id: string) => {
      const built = Template.fromStack(new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }), id)).toJSON() as {
        Resources: Record<string, { Type: string; Properties: { Environment?: { Variables?: Record<string, unknown> } } }>;
      };
      return Object.values(built.Resources).flatMap((resource) => {
        const value = resource.Type === 'AWS::Lambda::Function' ? resource.Properties.Environment?.Variables?.PUBLIC_API_URL : undefined;
        return value === undefined ? [] : [value];
      });
    };
    expect(linksOf({ publicApiUrl: 'https://fw.example.az/api/v3' }, 'FleetwatchDomain')).toEqual(['https://fw.example.az/api/v3']);
    const [fallback] = linksOf({}, 'FleetwatchNoDomain');
    expect(JSON.stringify(fallback)).toContain('execute-api');
    expect(() => linksOf({ publicApiUrl: 'http://fw.example.az/' }, 'FleetwatchBadDomain')).toThrow(/publicApiUrl.*https URL ending in \/api\/v3/);
  });

  it('builds nothing for SMS without countries', () => {
    const off = Template.fromStack(new FleetwatchStack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'FleetwatchNoSms')).toJSON() as {
      Resources: Record<string, { Type: string }>;
    };
    expect(Object.values(off.Resources).filter((resource) => resource.Type === 'AWS::SMSVOICE::ConfigurationSet')).toHaveLength(0);
  });
});
