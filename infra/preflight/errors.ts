import type { Row } from './row';

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
}

export function errorName(error: unknown): string {
  const { name } = (error ?? {}) as ErrorLike;
  return typeof name === 'string' ? name : 'Error';
}

export function errorCode(error: unknown): string | undefined {
  const { code } = (error ?? {}) as ErrorLike;
  return typeof code === 'string' ? code : undefined;
}

export function errorText(error: unknown): string {
  const { message } = (error ?? {}) as ErrorLike;
  return `${errorName(error)}: ${typeof message === 'string' && message ? message : String(error)}`;
}

/** No credentials, or no region: the SDK fails every call the same way, which the Credentials row explains. */
export function isCredentialsError(error: unknown): boolean {
  const name = errorName(error);
  const { message } = (error ?? {}) as ErrorLike;
  return (
    name === 'CredentialsProviderError' ||
    name === 'ExpiredTokenException' ||
    name === 'UnrecognizedClientException' ||
    name === 'InvalidClientTokenId' ||
    (typeof message === 'string' && /credential|region is missing|token .*expired/i.test(message))
  );
}

export function isAccessDenied(error: unknown): boolean {
  return /AccessDenied|NotAuthorized|Unauthorized|AuthorizationError/i.test(errorName(error));
}

/** The row of a call that failed for a reason its check does not expect. */
export function unexpectedFailure(check: string, action: string, error: unknown): Row {
  const fix = isCredentialsError(error)
    ? 'fix the Credentials row first'
    : isAccessDenied(error)
      ? `allow ${action} to these credentials (an administrator deploys the stack)`
      : undefined;
  return { check, status: 'fail', found: `${action} failed: ${errorText(error)}`, ...(fix ? { fix } : {}) };
}
