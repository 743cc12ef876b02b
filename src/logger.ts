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

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Line = (...args: unknown[]) => void;

/**
 * A request's logger (Fastify's childLoggerFactory), made when its first line is written at a level that logs.
 * pino makes a child by running its bindings (the request id) through the redaction of every path, the wildcard
 * ones included: about 2 % of an S2S SALE's CPU (issue 24 profile), spent on every request whether it logs a line
 * or not. Most requests write none (the request line is off at the default level outside production, and below
 * it in production when LOG_LEVEL says so). Child options (a route's own log level) make the child at once.
 */
export function requestLogger(parent: Logger, bindings: Record<string, unknown>, options: Record<string, unknown>): Logger {
  if (Object.keys(options).length > 0) return parent.child(bindings, options);
  return new LazyChild(parent, bindings) as unknown as Logger;
}

class LazyChild {
  #made: Logger | undefined;
  constructor(private readonly parent: Logger, private readonly childBindings: Record<string, unknown>) {}
  private get made(): Logger {
    return (this.#made ??= this.parent.child(this.childBindings));
  }
  private line(level: Level, args: unknown[]): void {
    if (!(this.#made ?? this.parent).isLevelEnabled(level)) return;
    const made = this.made;
    (made[level] as Line).apply(made, args);
  }
  get level(): string { return (this.#made ?? this.parent).level; }
  set level(level: string) { this.made.level = level; }
  isLevelEnabled(level: string): boolean { return (this.#made ?? this.parent).isLevelEnabled(level); }
  fatal(...args: unknown[]): void { this.line('fatal', args); }
  error(...args: unknown[]): void { this.line('error', args); }
  warn(...args: unknown[]): void { this.line('warn', args); }
  info(...args: unknown[]): void { this.line('info', args); }
  debug(...args: unknown[]): void { this.line('debug', args); }
  trace(...args: unknown[]): void { this.line('trace', args); }
  silent(): void {}
  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): Logger { return this.made.child(bindings, options); }
  bindings(): Record<string, unknown> { return this.#made ? this.#made.bindings() : { ...this.parent.bindings(), ...this.childBindings }; }
  flush(cb?: (err?: Error) => void): void { this.parent.flush(cb); }
}

export type { Logger };
