import { SNSClient } from '@aws-sdk/client-sns';
import { cachedClient } from './client-cache';

export const snsClient = cachedClient(() => new SNSClient({}));
