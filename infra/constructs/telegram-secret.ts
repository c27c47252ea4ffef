import { Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** Value the stack stores until the operator puts the real bot token. */
export const BOT_TOKEN_PLACEHOLDER = 'set-with-aws-secretsmanager-put-secret-value';

/**
 * The Telegram credentials, JSON `{"botToken","webhookSecret"}`. The stack generates `webhookSecret`
 * (Telegram echoes it in the X-Telegram-Bot-Api-Secret-Token header of every webhook call); the operator
 * replaces the `botToken` placeholder with the token from BotFather, keeping `webhookSecret`.
 * The functions read it at cold start; it never appears in an environment variable.
 */
export class TelegramSecret extends Construct {
  readonly secret: Secret;
  /** The secret's name, known at synthesis (the ARN adds a random suffix). */
  readonly secretName: string;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secretName = `${Stack.of(this).stackName}/telegram`;
    this.secret = new Secret(this, 'Secret', {
      secretName: this.secretName,
      description: 'fleetwatch Telegram bot: {"botToken": token from BotFather, "webhookSecret": generated, sent by Telegram with each webhook call}',
      generateSecretString: {
        secretStringTemplate: JSON.stringify({ botToken: BOT_TOKEN_PLACEHOLDER }),
        generateStringKey: 'webhookSecret',
        // Telegram accepts only A-Z, a-z, 0-9, _ and - in a webhook secret token.
        excludePunctuation: true,
        passwordLength: 64,
      },
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The bot token is issued by Telegram (BotFather) and cannot be rotated by a rotation Lambda; the operator revokes it in BotFather ' +
        'and stores the new one with put-secret-value. The webhook secret changes only together with a setWebhook call.',
    });
  }
}
