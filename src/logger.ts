/** Structured logs (pino) that cannot print a card number, CVV, password or hash by accident. */
import pino, { type Logger } from 'pino';

export const REDACTED_PATHS = [
  'card_number', '*.card_number', 'card_cvv2', '*.card_cvv2', 'card_cvv', '*.card_cvv', 'cvv', '*.cvv', 'pan', '*.pan',
  'password', '*.password', 'hash', '*.hash', 'card_token', '*.card_token',
  'req.headers.authorization', 'req.headers.token', 'body', '*.body',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

export type { Logger };
