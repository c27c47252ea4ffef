/**
 * Why SES refused an e-mail, in words an operator can act on, with SES's own error after them. The permanent
 * refusals are the ones no retry changes: a policy that forbids the send, a recipient the sandbox does not allow,
 * a sender that is not verified.
 */
const PERMANENT_WORDS: Readonly<Record<string, string>> = {
  AccessDeniedException:
    "SES refused the send for lack of permission: in the SES sandbox every recipient must be a verified identity, and the deliver function's role must allow sending from the sender address",
  MessageRejected: 'SES rejected the e-mail: in the SES sandbox the recipient must be a verified address (aws sesv2 create-email-identity)',
  MailFromDomainNotVerifiedException: "SES refused the sender: the sender address's MAIL FROM domain is not verified",
  NotFoundException: 'SES does not know the sender identity or the configuration set of this deployment',
  BadRequestException: 'SES refused the request as malformed',
  ValidationException: 'SES refused the request as malformed',
};

/** True when SES's error is one no retry can change. */
export function isPermanentSesError(error: unknown): boolean {
  return error instanceof Error && error.name in PERMANENT_WORDS;
}

/** The refusal in words, then SES's error name and message (never request data), within 500 characters. */
export function describeSesRefusal(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const words = PERMANENT_WORDS[name];
  return (words ? `${words} (${name}: ${message})` : `${name}: ${message}`).slice(0, 500);
}
