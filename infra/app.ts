import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackContext } from './context';
import { FleetwatchStack } from './stack';

const app = new App();
new FleetwatchStack(app, stackContext(app).stackName);
Tags.of(app).add('project', 'fleetwatch');
// cdk-nag v3 runs as a synthesis validation plugin: any unacknowledged finding fails `cdk synth`.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
