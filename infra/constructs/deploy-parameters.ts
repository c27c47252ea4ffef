import { CfnCondition, CfnParameter, Fn, type CfnParameterProps, type Stack } from 'aws-cdk-lib';

const EMAIL_PATTERN = '[^@\\s]+@[^@\\s]+\\.[^@\\s]+';
const OPTIONAL = (pattern: string) => `^$|^${pattern}$`;

/**
 * What an operator supplies at `cdk deploy --parameters Name=value`, by name. Optional parameters default to an
 * empty string; the functions receive them as-is and treat an empty value as "not configured". docs/deploy.md and
 * docs/configuration.md list them from here.
 */
export const DEPLOY_PARAMETERS = {
  SenderAddress: {
    type: 'String',
    description:
      'E-mail address alert e-mails are sent from. It must be a verified Amazon SES identity in this account and region ' +
      '(the address itself or its domain), and the account must be out of the SES sandbox to mail unverified recipients.',
    allowedPattern: `^${EMAIL_PATTERN}$`,
    constraintDescription: 'must be an e-mail address',
  },
  TelegramBotUsername: {
    type: 'String',
    default: '',
    description:
      'Optional username of the Telegram bot, without "@", used to build the t.me links that connect a user\'s chat. ' +
      'Set the bot token afterwards in the secret named by the TelegramSecretName output. Empty: Telegram not offered.',
    allowedPattern: OPTIONAL('[A-Za-z0-9_]{5,32}'),
    constraintDescription: 'must be empty or a Telegram bot username without "@"',
  },
  FcmPlatformApplicationArn: {
    type: 'String',
    default: '',
    description: 'Optional ARN of an Amazon SNS platform application for Firebase Cloud Messaging (Android push). Empty: no Android push.',
    allowedPattern: OPTIONAL('arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:app/GCM/[^/]+'),
    constraintDescription: 'must be empty or an SNS platform application ARN of type GCM',
  },
  ApnsPlatformApplicationArn: {
    type: 'String',
    default: '',
    description: 'Optional ARN of an Amazon SNS platform application for Apple Push Notification service (iOS push). Empty: no iOS push.',
    allowedPattern: OPTIONAL('arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:app/APNS(_SANDBOX)?/[^/]+'),
    constraintDescription: 'must be empty or an SNS platform application ARN of type APNS or APNS_SANDBOX',
  },
  AlarmEmail: {
    type: 'String',
    default: '',
    description:
      'Optional e-mail address subscribed to the alarm topic (dead letters, function errors, delivery failures, input backlog). ' +
      'The address must confirm the subscription. Empty: subscribe to the topic yourself.',
    allowedPattern: OPTIONAL(EMAIL_PATTERN),
    constraintDescription: 'must be empty or an e-mail address',
  },
} as const satisfies Record<string, CfnParameterProps>;

/** The parameters on the stack itself, so that their names are exactly the ones documented. */
export class DeployParameters {
  readonly senderAddress: CfnParameter;
  readonly telegramBotUsername: CfnParameter;
  readonly fcmPlatformApplicationArn: CfnParameter;
  readonly apnsPlatformApplicationArn: CfnParameter;
  readonly alarmEmail: CfnParameter;

  readonly hasFcmPlatformApplication: CfnCondition;
  readonly hasApnsPlatformApplication: CfnCondition;
  readonly hasAlarmEmail: CfnCondition;

  constructor(stack: Stack) {
    this.senderAddress = new CfnParameter(stack, 'SenderAddress', DEPLOY_PARAMETERS.SenderAddress);
    this.telegramBotUsername = new CfnParameter(stack, 'TelegramBotUsername', DEPLOY_PARAMETERS.TelegramBotUsername);
    this.fcmPlatformApplicationArn = new CfnParameter(stack, 'FcmPlatformApplicationArn', DEPLOY_PARAMETERS.FcmPlatformApplicationArn);
    this.apnsPlatformApplicationArn = new CfnParameter(stack, 'ApnsPlatformApplicationArn', DEPLOY_PARAMETERS.ApnsPlatformApplicationArn);
    this.alarmEmail = new CfnParameter(stack, 'AlarmEmail', DEPLOY_PARAMETERS.AlarmEmail);

    const isSet = (id: string, parameter: CfnParameter) =>
      new CfnCondition(stack, id, { expression: Fn.conditionNot(Fn.conditionEquals(parameter.valueAsString, '')) });
    this.hasFcmPlatformApplication = isSet('HasFcmPlatformApplication', this.fcmPlatformApplicationArn);
    this.hasApnsPlatformApplication = isSet('HasApnsPlatformApplication', this.apnsPlatformApplicationArn);
    this.hasAlarmEmail = isSet('HasAlarmEmail', this.alarmEmail);
  }
}
