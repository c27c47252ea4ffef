/**
 * The CloudFormation types `npm run cleanup` removes. A stack test checks that every type the template retains is
 * listed here, so a newly retained kind cannot be left behind unnoticed.
 */
export const CLEANUP_KINDS = ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::KMS::Key', 'AWS::SecretsManager::Secret'] as const;

export type CleanupKind = (typeof CLEANUP_KINDS)[number];

/** A resource of the stack still there: its kind (undefined for a kind the cleanup leaves alone) and its id. */
export interface Leftover {
  kind: CleanupKind | undefined;
  /** What the kind's API takes: a table's or log group's name, a key's or secret's ARN; the ARN of any other kind. */
  id: string;
}

const ARN = /^arn:[\w-]+:([\w-]+):[\w-]*:\d*:(.+)$/;

/** The kind an ARN names, or undefined for one the cleanup does not remove (a table's index or stream included). */
export function kindOfArn(arn: string): CleanupKind | undefined {
  const [, service, resource = ''] = ARN.exec(arn) ?? [];
  if (service === 'dynamodb' && /^table\/[^/]+$/.test(resource)) return 'AWS::DynamoDB::Table';
  if (service === 'logs' && resource.startsWith('log-group:')) return 'AWS::Logs::LogGroup';
  if (service === 'kms' && resource.startsWith('key/')) return 'AWS::KMS::Key';
  if (service === 'secretsmanager' && resource.startsWith('secret:')) return 'AWS::SecretsManager::Secret';
  return undefined;
}

/** The leftover an ARN names; tables and log groups by name, so that a name found by its prefix matches it. */
export function leftoverOfArn(arn: string): Leftover {
  const kind = kindOfArn(arn);
  const resource = ARN.exec(arn)?.[2] ?? '';
  switch (kind) {
    case 'AWS::DynamoDB::Table':
      return { kind, id: resource.slice('table/'.length) };
    case 'AWS::Logs::LogGroup':
      return { kind, id: resource.slice('log-group:'.length).replace(/:\*$/, '') };
    default:
      return { kind, id: arn };
  }
}
