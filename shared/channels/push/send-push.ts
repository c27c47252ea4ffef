import { loadSnsSdk, snsClient } from '../../aws/sns';
import type { PushDevice } from '../../schemas/directory';
import { describeError, type SendOutcome } from '../outcome';

export interface PushMessage {
  title: string;
  body: string;
  /** Small string map the app receives with the notification (alert id, vehicle id, severity). */
  data: Record<string, string>;
  /**
   * An action the app shows with the notification: APNs gets it as the `aps.category` the app registered with an
   * action button, FCM as the notification's click action; both carry the action's `url` (the signed acknowledge
   * link, which the app posts) and `label` in their data.
   */
  action?: { category: string; label: string; url: string };
}

const MAX_BODY_LENGTH = 1000;

/**
 * The JSON message structure SNS expects for platform endpoints: one payload per platform, each itself a JSON
 * string. FCM gets the HTTP v1 shape, APNs the `aps` dictionary plus the data fields.
 */
export function pushPayload(message: PushMessage): string {
  const body = message.body.length > MAX_BODY_LENGTH ? `${message.body.slice(0, MAX_BODY_LENGTH - 1)}…` : message.body;
  const { action } = message;
  const data = action ? { ...message.data, acknowledgeUrl: action.url, acknowledgeLabel: action.label } : message.data;
  const apns = JSON.stringify({
    aps: { alert: { title: message.title, body }, sound: 'default', ...(action ? { category: action.category } : {}) },
    ...data,
  });
  return JSON.stringify({
    default: `${message.title}\n${body}`,
    GCM: JSON.stringify({
      fcmV1Message: {
        message: {
          notification: { title: message.title, body },
          data,
          ...(action ? { android: { notification: { click_action: action.category } } } : {}),
        },
      },
    }),
    APNS: apns,
    APNS_SANDBOX: apns,
  });
}

/** SNS answers meaning the endpoint is dead: the app was uninstalled or the token expired. */
function endpointIsGone(error: unknown): boolean {
  const name = (error as Error).name;
  if (name === 'EndpointDisabledException' || name === 'EndpointDisabled' || name === 'NotFoundException') return true;
  return (name === 'InvalidParameterException' || name === 'InvalidParameter') && /endpoint/i.test((error as Error).message);
}

const PERMANENT_ERRORS = new Set([
  'InvalidParameterException',
  'InvalidParameter',
  'AuthorizationErrorException',
  'PlatformApplicationDisabledException',
]);

export async function sendPush(device: PushDevice, message: PushMessage): Promise<SendOutcome> {
  try {
    const { PublishCommand } = await loadSnsSdk();
    await (await snsClient()).send(new PublishCommand({ TargetArn: device.endpointArn, MessageStructure: 'json', Message: pushPayload(message) }));
    return { status: 'sent' };
  } catch (error) {
    if (endpointIsGone(error)) return { status: 'failed', error: describeError(error), gone: true };
    if (PERMANENT_ERRORS.has((error as Error).name)) return { status: 'failed', error: describeError(error) };
    return { status: 'retry', error: describeError(error) };
  }
}
