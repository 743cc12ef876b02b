/**
 * The error catalog (decisions D3): every error the gateway answers with, as data. Channels render a
 * GatewayError into their dialect (S2S adds "result": "ERROR"); nothing else invents error texts.
 */

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface ErrorSpec {
  readonly http: number;
  readonly code: string;
  readonly message: string;
  /** Seconds after which the same request may succeed (sent as Retry-After); absent: sending it again will not help. */
  readonly retryAfter?: number;
}

/** Entries named by what went wrong. Texts are the spec's, to the letter (some lack a final period). */
export const ERRORS = {
  invalidRequest: { http: 400, code: '100000', message: 'Request data is invalid.' },
  hashInvalid: { http: 401, code: '100000', message: 'hash: Hash is not valid.' },
  merchantNotFound: { http: 401, code: '100000', message: 'merchant_key: Merchant not found.' },
  paymentDoesNotExist: { http: 400, code: '101000', message: 'Payment does not exist.' },
  orderDoesNotExist: { http: 400, code: '101000', message: 'Order does not exist.' },
  transactionDoesNotExist: { http: 400, code: '101000', message: 'Transaction does not exist.' },
  paymentNotFound: { http: 400, code: '100000', message: 'Payment not found.' },
  scheduleNotFound: { http: 400, code: '100000', message: 'Schedule not found' },
  incorrectTransaction: { http: 400, code: '100000', message: 'Incorrect transaction' },
  valueNotCorrect: { http: 400, code: '100000', message: 'This value is not correct.' },
  voidNotAllowed: { http: 400, code: '100000', message: 'Void is not allowed.' },
  sizeOutOfRange: { http: 400, code: '100000', message: 'size should be within 1..100' },
  parameterDeprecated: { http: 400, code: '100000', message: 'Parameter is deprecated' },
  scheduleInUse: { http: 400, code: '100000', message: 'Schedule is used by payments and can not be deleted.' },
  testClockLiveMerchant: { http: 403, code: '100000', message: 'Test clocks are available to sandbox merchants only.' },
  noEligibleMid: { http: 400, code: '204002', message: 'Enabled merchant mappings or MIDs not found.' },
  dayMidLimit: { http: 400, code: '204007', message: 'Day MID limit is not set or exceeded.' },
  actionNotSupported: { http: 400, code: '204005', message: 'Payment action not supported.' },
  captureNotPending: { http: 400, code: '208003', message: 'Not acceptable to request the capture for payment not in pending status.' },
  captureTooLarge: { http: 400, code: '208004', message: 'Not acceptable to request the capture for amount bigger than auth amount.' },
  refundNotAllowed: { http: 400, code: '208005', message: 'Not acceptable to request the refund for payment not in settled or pending status.' },
  refundTooLarge: { http: 400, code: '208006', message: 'Not acceptable to request the refund for amount bigger than payment amount.' },
  chargebackTooLarge: { http: 400, code: '208010', message: "Not acceptable to request the chargeback for amount bigger than payment's amount." },
  // Admin: a dispute event that does not apply to the dispute's stage and status (its table says which do).
  // Admin: the sandbox's chargeback is for sandbox merchants' payments.
  sandboxDisputeLiveMerchant: { http: 403, code: '100000', message: 'The sandbox raises chargebacks on sandbox merchants\' payments only.' },
  disputeEventNotAllowed: { http: 409, code: '100000', message: 'This event does not apply to the dispute in its stage and status.' },
  reversalPartial: { http: 400, code: '208009', message: 'Not acceptable to request the reversal for partial amount.' },
  cardTokenInvalid: { http: 400, code: '205005', message: 'Card token is invalid or not found.' },
  operationInProgress: { http: 409, code: '100000', message: 'Previous operation on this payment is not completed.', retryAfter: 1 },
  duplicateRequest: { http: 400, code: '400', message: 'Duplicate request' },
  idempotencyKeyReused: { http: 422, code: '100000', message: 'Idempotency-Key was already used with another request body.' },
  idempotencyOutcomeUnknown: { http: 409, code: '100000', message: 'The request first sent with this Idempotency-Key failed on our side and may have taken effect: look the payment up, and send it again under a new key only if it does not exist.' },
  sessionNotPayable: { http: 400, code: '100000', message: 'Session can not be paid.' },
  // Hosted payment fields: a bad Token answers 401 on processing and 403 on session/update, as the platform's pages list.
  sessionTokenInvalid: { http: 401, code: '100000', message: 'Token: Session token is invalid or expired.' },
  sessionTokenForbidden: { http: 403, code: '100000', message: 'Token: Session token is invalid or expired.' },
  sessionNotUpdatable: { http: 400, code: '100000', message: 'Session can not be updated' },
  sessionOperationMismatch: { http: 400, code: '100000', message: 'operation: The session operation does not match this endpoint.' },
  notFound: { http: 404, code: '100000', message: 'Not found.' },
  // A merchant's own guards (issue 25, item 5): its allowed source addresses and its request signature header.
  sourceAddressRefused: { http: 403, code: '100000', message: 'Request source address is not allowed for this merchant.' },
  requestSignatureRequired: { http: 401, code: '100000', message: 'Portcullis-Signature: Request signature is required.' },
  requestSignatureInvalid: { http: 401, code: '100000', message: 'Portcullis-Signature: Request signature is not valid.' },
  requestSignatureExpired: { http: 401, code: '100000', message: 'Portcullis-Signature: Request signature timestamp is outside the 5-minute window.' },
  requestSignatureReplayed: { http: 401, code: '100000', message: 'Portcullis-Signature: Request signature was already used.' },
  notificationSignatureInvalid: { http: 401, code: '100000', message: 'Notification signature is not valid.' },
  // The sandbox APM provider refusing a caller: API key and secret, access token or Signature that do not verify.
  providerAuthInvalid: { http: 401, code: '100000', message: 'Authorization: Provider credentials are not valid.' },
  // Admin: resolving a payment that has no operation waiting for an operator (or one resolved a moment ago).
  // Admin: saving a risk rule set over a version other than the one the operator read.
  configurationChanged: { http: 412, code: '100000', message: 'If-Match: The configuration was saved by someone else since it was read (its ETag differs): read it again.' },
  riskRulesChanged: { http: 409, code: '100000', message: 'The rule set was changed since it was read: read it again.' },
  // Admin: saving the fraud-dispute feed's setting over a version other than the one read.
  reconRowResolved: { http: 409, code: '100000', message: 'The exception was resolved meanwhile (another operator acted on it): read it again.' },
  riskFeedChanged: { http: 409, code: '100000', message: 'The fraud-dispute feed was changed since it was read: read it again.' },
  reviewNotPending: { http: 409, code: '100000', message: 'The payment is not held for a risk review (decided already, or never held).' },
  reviewNotResumable: { http: 409, code: '100000', message: 'The held payment cannot go on: its MID or its card is no longer there. Decline it.' },
  nothingToResolve: { http: 409, code: '100000', message: 'Payment has no operation waiting for an operator.' },
  adminUnauthorized: { http: 401, code: '100000', message: 'Authorization: Operator token is not valid.' },
  adminForbidden: { http: 403, code: '100000', message: 'Authorization: Your role does not permit this action.' },
  consoleSignInFailed: { http: 401, code: '100000', message: 'Authorization: E-mail or password is not valid.' },
  signInCrossSite: { http: 403, code: '100000', message: 'Authorization: Sign-in from another site is not allowed.' },
  // The merchant portal (issue 30).
  portalUnauthorized: { http: 401, code: '100000', message: 'Authorization: Sign in to the portal.' },
  portalForbidden: { http: 403, code: '100000', message: 'Authorization: Your role does not permit this action.' },
  portalSettingLocked: { http: 403, code: '100000', message: 'Authorization: Your payment provider does not let you change this setting.' },
  invitationInvalid: { http: 400, code: '100000', message: 'This invitation is not valid: it was used, replaced or has expired.' },
  mailNotConfigured: { http: 409, code: '100000', message: 'E-mail is not configured on this gateway (SMTP_URL): the invitation was not sent.' },
  mailNotSent: { http: 502, code: '100000', message: 'The e-mail server refused the invitation: the user waits for a new link (send the invitation again).' },
  // Two-factor sign-in (issue 30), for operator and portal users alike.
  twoFactorRequired: { http: 401, code: '100000', message: 'Authorization: Enter the code of your authenticator app (or a recovery code).' },
  twoFactorEnrolmentRequired: { http: 403, code: '100000', message: 'Authorization: Set up two-factor sign-in before anything else.' },
  twoFactorCodeInvalid: { http: 400, code: '100000', message: 'code: The code is not valid.' },
  twoFactorNotPending: { http: 409, code: '100000', message: 'Start the two-factor set-up first.' },
  twoFactorMandatory: { http: 409, code: '100000', message: 'Two-factor sign-in is mandatory on this gateway: it can not be switched off.' },
  metricsUnauthorized: { http: 401, code: '100000', message: 'Authorization: Not allowed to read metrics.' },
  csrfTokenInvalid: { http: 403, code: '100000', message: 'Authorization: CSRF token is missing or not valid.' },
  payloadTooLarge: { http: 413, code: '100000', message: 'Request data is invalid.' },
  unsupportedMediaType: { http: 415, code: '100000', message: 'Request data is invalid.' },
  headersTooLarge: { http: 431, code: '100000', message: 'Request data is invalid.' },
  requestTimeout: { http: 408, code: '100000', message: 'Request data is invalid.' },
  tooManyRequests: { http: 429, code: '100000', message: 'Too many requests.' },
  internal: { http: 500, code: '100000', message: 'Internal error.' },
  // The store cannot be reached (a database failover, a network cut): nothing was decided, the client may retry.
  unavailable: { http: 503, code: '100000', message: 'Service temporarily unavailable.' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorName = keyof typeof ERRORS;

/** Validation message texts (Symfony wording, as the platform answers). */
export const MESSAGES = {
  blank: 'This value should not be blank.',
  notUrl: 'This value is not a valid URL.',
  notPositive: 'This value should be greater than 0.',
  notCorrect: 'This value is not correct.',
  notValid: 'This value is not valid.',
  notChoice: 'The value you selected is not a valid choice.',
  tooLong: (n: number) => `This value is too long. It should have ${n} character${n === 1 ? '' : 's'} or less.`,
  tooShort: (n: number) => `This value is too short. It should have ${n} character${n === 1 ? '' : 's'} or more.`,
  notType: (t: string) => `This value should be of type ${t}.`,
  notEmail: 'This value is not a valid email address.',
  notDate: 'This value is not a valid date.',
  notCountry: 'This value is not a valid country.',
  notCurrency: 'This value is not a valid currency.',
  notIp: 'This value is not a valid IP address.',
  notLuhn: 'Invalid card number.',
  notInRange: (min: number, max: number) => `This value should be between ${min} and ${max}.`,
  extraField: 'This field was not expected.',
  exactLength: (n: number) => `This value should have exactly ${n} character${n === 1 ? '' : 's'}.`,
  notDatetime: 'This value is not a valid datetime.',
  shouldBeBlank: 'This value should be blank.',
  equalTo: (v: string) => `This value should be equal to ${v}.`,
  deprecated: 'Parameter is deprecated',
  notTrue: 'This value should be true.',
  notInteger: 'This value should be of type integer.',
  notOnOrAfter: (date: string) => `This value should be greater than or equal to ${date}.`,
  alreadyUsed: 'This value is already used.',
  lastAdmin: 'The last enabled admin can not be demoted or disabled.',
  lastOwner: 'The last enabled owner can not be demoted or disabled.',
} as const;

export class GatewayError extends Error {
  readonly spec: ErrorSpec;
  readonly fields: readonly FieldError[];

  constructor(spec: ErrorSpec | ErrorName, fields: readonly FieldError[] = []) {
    const resolved = typeof spec === 'string' ? ERRORS[spec] : spec;
    super(resolved.message);
    this.name = 'GatewayError';
    this.spec = resolved;
    this.fields = fields;
  }

  static invalid(fields: readonly FieldError[]): GatewayError {
    return new GatewayError('invalidRequest', fields);
  }

  static field(field: string, message: string): GatewayError {
    return GatewayError.invalid([{ field, message }]);
  }
}

/**
 * A hash that does not match (the D3 `hashInvalid` answer). It remembers whether the merchant is a sandbox
 * merchant, its digest and the fields it sent, so that a sandbox answer can add a `hint` naming the
 * formula expected (never its value); live merchants get the platform's body unchanged.
 */
export class HashMismatch extends GatewayError {
  readonly sandbox: boolean;
  readonly digest: 'md5' | 'sha256';
  /** The request's fields when the channel parsed them itself (S2S forms, multipart included). */
  readonly requestFields: Readonly<Record<string, unknown>> | undefined;

  constructor(merchant: { readonly sandbox: boolean; readonly digest: 'md5' | 'sha256' }, requestFields?: Readonly<Record<string, unknown>>) {
    super('hashInvalid');
    this.sandbox = merchant.sandbox;
    this.digest = merchant.digest;
    this.requestFields = requestFields;
  }
}

export interface ErrorBody {
  http_code: number;
  error_code: string;
  error_message: string;
  errors?: { error_code: string; error_message: string }[];
}

/** The D3 body of an error. */
export function errorBody(err: GatewayError): ErrorBody {
  const body: ErrorBody = { http_code: err.spec.http, error_code: err.spec.code, error_message: err.spec.message };
  if (err.fields.length > 0) {
    body.errors = err.fields.map((f) => ({ error_code: err.spec.code, error_message: `${f.field}: ${f.message}` }));
  }
  return body;
}
