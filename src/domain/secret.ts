/**
 * A value that cannot be printed by accident (design principle 7, after Hyperswitch's `Secret<T>`).
 * Logging, string interpolation, JSON serialisation and util.inspect all show `[redacted]`; the value
 * comes out only through an explicit `expose()`, which is easy to find in review.
 */
import { inspect } from 'node:util';

export const REDACTED = '[redacted]';

/** A secret as stored, sealed (AES-256-GCM, the key id inside so keys rotate): every part base64, nothing readable. */
export interface SealedSecret {
  readonly keyId: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly authTag: string;
}

export class Secret<T> {
  // A private field: invisible to Object.keys, spread, JSON and structured logging alike.
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  /** The wrapped value. Call it only where the value must leave (a connector request, a cipher). */
  expose(): T {
    return this.#value;
  }

  /** A new Secret of a value derived from this one, without exposing it in between. */
  map<U>(fn: (value: T) => U): Secret<U> {
    return new Secret(fn(this.#value));
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
