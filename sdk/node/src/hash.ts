/**
 * The platform's signature formulas, written from the published recipes (docs/merchants/hashes.md). Every request
 * hash is a hex digest of an upper-cased pre-image; the building blocks follow PHP, where the formulas
 * come from: `strtoupper` changes ASCII a-z only, `strrev` reverses bytes, digests are lower-case hex.
 */
import { createHash } from 'node:crypto';

/** md5 by default; sha256 when the merchant's account uses "SHA256 encryption algorithm for hash". */
export type Digest = 'md5' | 'sha256';

/** A piece of a pre-image: text as it is, or text whose UTF-8 bytes are reversed (PHP strrev). */
export type Piece = string | { readonly reversed: string };

export const reversed = (text: string): Piece => ({ reversed: text });

function pieceBytes(piece: Piece): Buffer {
  return typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece.reversed, 'utf8').reverse();
}

/** PHP strtoupper: ASCII letters only, byte by byte (so "é" and "ß" stay as they are). */
function asciiUpper(bytes: Buffer): Buffer {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b >= 0x61 && b <= 0x7a) bytes[i] = b - 0x20;
  }
  return bytes;
}

const hexOf = (algorithm: 'md5' | 'sha1' | 'sha256', data: Buffer | string) => createHash(algorithm).update(data).digest('hex');

/** UPPER(concat(pieces)) . tail, as bytes: `tail` (a password some recipes append outside UPPER) keeps its case. */
export function preimage(pieces: readonly Piece[], tail = ''): Buffer {
  return Buffer.concat([asciiUpper(Buffer.concat(pieces.map(pieceBytes))), Buffer.from(tail, 'utf8')]);
}

/** md5_hex (or sha256_hex) of the pre-image: the S2S CARD and S2S APM hashes. */
export function s2sDigest(pieces: readonly Piece[], digest: Digest = 'md5', tail = ''): string {
  return hexOf(digest, preimage(pieces, tail));
}

/** sha1_hex(md5_hex(UPPER(fields . PASSWORD))): the Checkout hash (sha1 of sha256 in SHA256 mode). */
export function checkoutDigest(fields: readonly string[], password: string, digest: Digest = 'md5'): string {
  return hexOf('sha1', hexOf(digest, preimage([...fields, password])));
}

/**
 * The card term of the S2S CARD formulas: first 6 and last 4 digits of the card. Takes a full number, a
 * mask as callbacks carry it (`411111****1111`) or the ten digits already cut; a card_token is used as it is.
 */
export function cardTerm(card: string): string {
  // A card number or mask is at most 19 digits with separators; anything else (a 64-character card_token) stays whole.
  if (!/^[0-9* xX-]{10,23}$/.test(card)) return card;
  const digits = card.replace(/[^0-9]/g, '');
  return digits.length >= 10 ? digits.slice(0, 6) + digits.slice(-4) : digits;
}

// --- Checkout (JSON API) ---------------------------------------------------------------------------------

export interface OrderTerms {
  number: string;
  amount: string;
  currency: string;
  description: string;
}

/** Each Checkout request's fields, in formula order (the password is appended by checkoutDigest). */
export const checkoutFields = {
  /** Session, and the hosted-fields session token: order.number . order.amount . order.currency . order.description. */
  session: (o: OrderTerms) => [o.number, o.amount, o.currency, o.description],
  /** Status by payment_id, void, retry: payment_id. */
  paymentId: (paymentId: string) => [paymentId],
  /** Status by order_id: order_id. */
  orderId: (orderId: string) => [orderId],
  /** Capture and refund: payment_id . amount (amount left out when not sent). */
  paymentIdAmount: (paymentId: string, amount = '') => [paymentId, amount],
  /** Recurring: recurring_init_trans_id . recurring_token . order.number . order.amount . order.description (no currency). */
  recurring: (r: { initTransId: string; token: string; number: string; amount: string; description: string }) =>
    [r.initTransId, r.token, r.number, r.amount, r.description],
  /** Card credit: order_id . order_amount . order_currency . order_description. */
  cardCredit: (o: OrderTerms) => [o.number, o.amount, o.currency, o.description],
  /** Callbacks and return URLs: id (payment_id) . order_number . order_amount . order_currency . order_description. */
  callback: (paymentId: string, o: OrderTerms) => [paymentId, o.number, o.amount, o.currency, o.description],
} as const;

// --- S2S CARD (Formulas 1 to 8) ---------------------------------------------------------------------------

/** The pieces of each S2S CARD formula; absent optional terms (an e-mail not sent) are ''. */
export const s2sCardPieces = {
  /** F1, SALE, DEBIT, RETRY, RECURRING_SALE: strrev(email) . PASSWORD . strrev(card6_4 or card_token). */
  f1: (email: string, password: string, card: string): Piece[] => [reversed(email), password, reversed(cardTerm(card))],
  /** F2, CAPTURE, VOID, CREDITVOID, GET_TRANS_STATUS, GET_TRANS_DETAILS and callbacks: strrev(email) . PASSWORD . trans_id . strrev(card6_4). */
  f2: (email: string, password: string, transId: string, card: string): Piece[] => [reversed(email), password, transId, reversed(cardTerm(card))],
  /** F3, CREATE_SCHEDULE: strrev(PASSWORD). */
  f3: (password: string): Piece[] => [reversed(password)],
  /** F4, schedule actions by id: strrev(schedule_id . PASSWORD). */
  f4: (scheduleId: string, password: string): Piece[] => [reversed(scheduleId + password)],
  /** F5, CREDIT2CARD: PASSWORD . strrev(card6_4 or card_token). */
  f5: (password: string, card: string): Piece[] => [password, reversed(cardTerm(card))],
  /** F6, CREDIT2CARD lookups and callbacks: PASSWORD . trans_id . strrev(card6_4). */
  f6: (password: string, transId: string, card: string): Piece[] => [password, transId, reversed(cardTerm(card))],
  /** F7, GET_TRANS_STATUS_BY_ORDER: strrev(email) . PASSWORD . order_id . strrev(card6_4). */
  f7: (email: string, password: string, orderId: string, card: string): Piece[] => [reversed(email), password, orderId, reversed(cardTerm(card))],
  /** F8, wallet SALE with payment_token: strrev(email) . PASSWORD. */
  f8: (email: string, password: string): Piece[] => [reversed(email), password],
} as const;

/** The follow-up recipe that needs no card: md5(UPPER(strrev(id)) . PASSWORD) (the password keeps its case). */
export const byReversedId = (id: string, password: string, digest: Digest = 'md5') => s2sDigest([reversed(id)], digest, password);

// --- S2S APM ----------------------------------------------------------------------------------------------

export const s2sApmHash = {
  /** SALE: md5(UPPER(strrev(identifier . order_id . order_amount . order_currency . PASSWORD))). */
  sale: (p: { identifier?: string; orderId: string; amount: string; currency: string }, password: string, digest: Digest = 'md5') =>
    s2sDigest([reversed((p.identifier ?? '') + p.orderId + p.amount + p.currency + password)], digest),
  /** CAPTURE, VOID, GET_TRANS_STATUS: md5(UPPER(strrev(trans_id)) . PASSWORD). */
  byTransId: (transId: string, password: string, digest: Digest = 'md5') => byReversedId(transId, password, digest),
  /** CREDITVOID: md5(UPPER(strrev(trans_id . PASSWORD))). */
  creditvoid: (transId: string, password: string, digest: Digest = 'md5') => s2sDigest([reversed(transId + password)], digest),
  /** CREDIT2VIRTUAL: md5(UPPER(strrev(order_id . order_amount . order_currency)) . PASSWORD). */
  credit2virtual: (p: { orderId: string; amount: string; currency: string }, password: string, digest: Digest = 'md5') =>
    s2sDigest([reversed(p.orderId + p.amount + p.currency)], digest, password),
  /** CREDIT2VIRTUAL callback: md5(UPPER(strrev(trans_id . order_id . status)) . PASSWORD). */
  credit2virtualCallback: (p: { transId: string; orderId: string; status: string }, password: string, digest: Digest = 'md5') =>
    s2sDigest([reversed(p.transId + p.orderId + p.status)], digest, password),
  /**
   * Every other APM callback: each value (nested ones too) byte-reversed, each level sorted by key as PHP
   * ksort sorts, joined without separators, then md5(UPPER(joined . PASSWORD)). `hash` itself is left out.
   */
  callback: (params: Readonly<Record<string, NestedValue>>, password: string, digest: Digest = 'md5') => {
    const { hash: _left, ...rest } = params;
    return hexOf(digest, asciiUpper(Buffer.concat([joinReversed(rest), Buffer.from(password, 'utf8')])));
  },
} as const;

/** A parsed form value: text, or a nested object from bracket keys (`custom_data[k]=v`). */
export type NestedValue = string | { readonly [key: string]: NestedValue };

function joinReversed(value: NestedValue): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8').reverse();
  return Buffer.concat(Object.keys(value).sort(phpKsort).map((k) => joinReversed(value[k] as NestedValue)));
}

/** PHP 8 ksort: integer-looking keys compare as numbers and come before the others, which compare as bytes. */
function phpKsort(a: string, b: string): number {
  const integer = /^-?(0|[1-9][0-9]*)$/;
  const ai = integer.test(a);
  const bi = integer.test(b);
  if (ai && bi) return Number(a) - Number(b);
  if (ai !== bi) return ai ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
