import type { TableKey } from '../shared/store/tables';

/**
 * The stack's output keys. They are part of the deployed interface: `npm run admin -- --stack <name>` and
 * operators' scripts read them with DescribeStacks, so a key, once deployed, is never renamed.
 * (None is exported: another stack importing one would pin it.)
 */
export const TABLE_OUTPUTS: Record<TableKey, string> = {
  rules: 'RulesTableName',
  vehicleState: 'VehicleStateTableName',
  alerts: 'AlertsTableName',
  directory: 'DirectoryTableName',
  geozones: 'GeozonesTableName',
  visits: 'VisitsTableName',
};

export const QUEUE_OUTPUTS = {
  input: 'InputQueueUrl',
  inputDeadLetters: 'InputDeadLetterQueueUrl',
  deliveries: 'DeliveriesQueueUrl',
  deliveryDeadLetters: 'DeliveriesDeadLetterQueueUrl',
} as const;

export const API_URL_OUTPUT = 'ApiUrl';
export const TELEGRAM_SECRET_NAME_OUTPUT = 'TelegramSecretName';
