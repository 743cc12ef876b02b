/** Structured logs (pino) that cannot print a card number, CVV, password or hash by accident. */
import pino, { type Logger } from 'pino';

export const REDACTED_PATHS = [
  'card_number', '*.card_number', 'card_cvv2', '*.card_cvv2', 'card_cvv', '*.card_cvv', 'cvv', '*.cvv', 'pan', '*.pan',
  'password', '*.password', 'hash', '*.hash', 'card_token', '*.card_token',
  'payment_token', '*.payment_token', 'cryptogram', '*.cryptogram', '*.*.cryptogram',
  'req.headers.authorization', 'req.headers.token', 'body', '*.body',
];

const CENSOR = '[redacted]';

/**
 * Query parameter names whose values never reach a log: the body fields redacted above, in any spelling
 * (`card[number]`, `cardNumber`, `card_exp_year`), and anything naming a token, secret, key or signature.
 */
const SECRET_PARAMETER = /card|cvv|cvc|pan|pass|hash|token|secret|sign|key|otp|code|auth|exp/i;

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The URL with the value of every secret-looking query parameter replaced; the path is kept as it was. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && SECRET_PARAMETER.test(decodedName(name)) ? `${name}=${CENSOR}` : pair;
  });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with the query redacted. */
function serializeRequest(req: LoggedRequest) {
  return { method: req.method, url: redactUrl(req.url ?? ''), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: CENSOR }, serializers: { req: serializeRequest } };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
