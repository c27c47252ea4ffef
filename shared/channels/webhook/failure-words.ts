/**
 * Plain words for why a webhook delivery did not go through, for the alert's delivery record and the log.
 * Node reports network and TLS failures by code (`EPROTO`, `ECONNREFUSED`, `CERT_HAS_EXPIRED` …) with
 * OpenSSL's text; an operator reading "EPROTO … wrong version number" should read what it means instead.
 * Only codes and messages are read: never the URL or the request.
 */
const CERTIFICATE_CODES: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate chain is incomplete (no trusted issuer)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate chain is incomplete (no trusted issuer)',
  ERR_TLS_CERT_ALTNAME_INVALID: "its certificate does not name the URL's host",
  CERT_REVOKED: 'its certificate was revoked',
};

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause && cause !== error ? codeOf(cause) : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a failed connection or exchange means, in words; falls back to the error's own name and message. */
export function describeSendError(error: unknown): string {
  const code = codeOf(error);
  const message = messageOf(error);
  if (code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(message)) {
    return 'TLS handshake failed: the endpoint speaks plain HTTP on an https URL';
  }
  if (code && code in CERTIFICATE_CODES) return `TLS certificate refused: ${CERTIFICATE_CODES[code]}`;
  if (code === 'EPROTO' || /ssl|tls/i.test(code ?? '')) return `TLS handshake failed (${code})`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused: nothing listens on that host and port';
    case 'ENOTFOUND':
      return 'host name not found (DNS has no address for it)';
    case 'EAI_AGAIN':
      return 'host name lookup failed for now (DNS did not answer)';
    case 'ECONNRESET':
      return 'the endpoint closed the connection before answering';
    case 'ETIMEDOUT':
    case 'ECONNABORTED':
      return 'the connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host cannot be reached (no network route)';
  }
  const name = error instanceof Error ? error.name : 'Error';
  return `${name}: ${message}`.slice(0, 500);
}

/** A status the endpoint answered, with what its class means. */
export function describeStatus(status: number): string {
  if (status === 410) return 'the endpoint answered 410 Gone';
  if (status >= 300 && status < 400) return `the endpoint answered ${status}; redirects are not followed`;
  if (status === 408) return 'the endpoint answered 408 (it timed out reading the request)';
  if (status === 429) return 'the endpoint answered 429 (too many requests; it asks to slow down)';
  if (status >= 500) return `the endpoint answered ${status} (a server error on its side)`;
  if (status >= 400) return `the endpoint answered ${status} (it refused the request)`;
  return `the endpoint answered ${status}`;
}

/** The timeout of one delivery, in words. */
export function describeTimeout(timeoutMs: number): string {
  return `no answer within ${timeoutMs / 1000} s`;
}
