const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** A resource of a policy statement as text: Fn::Join flattened, references by logical id. */
function resourceText(value: unknown): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (intrinsic['Fn::Join']) return intrinsic['Fn::Join'][1].map(resourceText).join(intrinsic['Fn::Join'][0]);
  if (intrinsic.Ref) return `<${intrinsic.Ref}>`;
  if (intrinsic['Fn::GetAtt']) return `<${intrinsic['Fn::GetAtt'].join('.')}>`;
  return JSON.stringify(value);
}

/** Every resource of a statement that holds a wildcard: a bare "*", one inside a list, or a pattern like `…/*`. */
export function wildcardResources(statement: { Resource: unknown }): string[] {
  return asArray(statement.Resource)
    .map(resourceText)
    .filter((text) => text.includes('*'));
}

/**
 * The wildcards the stack may hold, each for a reason written next to its grant: a table's own indexes, SNS
 * push endpoints created at run time (a function's own log streams are checked where the function is known).
 */
export const ALLOWED_WILDCARDS: RegExp[] = [
  /^<[A-Za-z0-9]+Table[A-Za-z0-9]+\.Arn>\/index\/\*$/,
  /^arn:<AWS::Partition>:sns:<AWS::Region>:<AWS::AccountId>:endpoint\/\*$/,
];

/**
 * A grant whose wildcard its condition narrows: every SES identity (the sandbox authorizes a send against each
 * recipient's identity too), for e-mails whose From is the stack's sender address alone.
 */
export function narrowedToSender(statement: { Action: unknown; Resource: unknown; Condition?: unknown }): boolean {
  return (
    JSON.stringify(statement.Action) === JSON.stringify('ses:SendEmail') &&
    wildcardResources(statement).every((wildcard) => wildcard.endsWith(':identity/*')) &&
    JSON.stringify(statement.Condition) === JSON.stringify({ StringEquals: { 'ses:FromAddress': { Ref: 'SenderAddress' } } })
  );
}
