import { SESv2Client } from '@aws-sdk/client-sesv2';
import { cachedClient } from './client-cache';

export const sesClient = cachedClient(() => new SESv2Client({}));
