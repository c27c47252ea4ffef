import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { FleetwatchStack, PROJECT_ROOT } from '../../infra/stack';

/** Each alarm's id in the stack (the construct id, which its logical id and CloudWatch name start with), by logical id. */
function stackAlarms(): { template: string[]; ids: Map<string, string> } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new FleetwatchStack(app, 'FleetwatchRunbook');
  const resources = app.synth().getStackByName(stack.stackName).template.Resources as Record<string, { Type: string }>;
  const template = Object.entries(resources)
    .filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm')
    .map(([id]) => id);
  const ids = new Map<string, string>();
  for (const construct of stack.node.findAll()) {
    if (construct instanceof CfnAlarm) ids.set(stack.resolve(construct.logicalId) as string, construct.node.scope!.node.id);
  }
  return { template, ids };
}

/** Alarm names in backticks in the `###` headings of the runbook's "Alarms" section, with how often each appears. */
function runbookAlarmNames(markdown: string): Map<string, number> {
  const section = /^## Alarms\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  const names = new Map<string, number>();
  for (const heading of section.match(/^### .*$/gm) ?? []) {
    for (const [, name] of heading.matchAll(/`([^`]+)`/g)) names.set(name!, (names.get(name!) ?? 0) + 1);
  }
  return names;
}

describe('docs/operations.md runbook', () => {
  const runbook = runbookAlarmNames(readFileSync(join(PROJECT_ROOT, 'docs/operations.md'), 'utf8'));
  const { template, ids } = stackAlarms();
  const alarms = template.map((logicalId) => ids.get(logicalId) ?? logicalId);

  it('finds the alarms of the template and the headings of the runbook', () => {
    expect(alarms.length).toBeGreaterThan(10);
    expect(runbook.size).toBeGreaterThan(10);
    // every alarm resource of the template is one the construct tree names (none is built outside CDK's Alarm)
    expect(template.filter((logicalId) => !ids.has(logicalId))).toEqual([]);
    expect(new Set(alarms).size).toBe(alarms.length);
  });

  it('has a section for every alarm of the stack', () => {
    expect(alarms.filter((name) => !runbook.has(name))).toEqual([]);
  });

  it('names no alarm the stack does not define, and each alarm once', () => {
    expect([...runbook.keys()].filter((name) => !alarms.includes(name))).toEqual([]);
    expect([...runbook].filter(([, count]) => count > 1).map(([name]) => name)).toEqual([]);
  });
});
