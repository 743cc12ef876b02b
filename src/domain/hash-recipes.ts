/**
 * Every request hash recipe as text (wire-reference section 1, decisions D2): what a sandbox merchant's bad
 * hash answer names in its `hint`, and what docs/merchants/hashes.md documents. The formulas themselves are computed
 * in signatures.ts; this table only describes them, so it never holds or reveals an expected value.
 */
import type { Digest } from './signatures.ts';

export interface HashRecipe {
  /** The request the recipe signs. */
  readonly request: string;
  /** The formula; `md5` stands for the merchant's digest. */
  readonly formula: string;
  /** What the pre-image covers, besides the password. */
  readonly fields: readonly string[];
}

const recipe = (request: string, formula: string, fields: readonly string[]): HashRecipe => ({ request, formula, fields });

const CARD_OF_PAYMENT = 'the first 6 and last 4 digits of the payment\'s card';
const EMAIL_OF_PAYMENT = 'the payment\'s payer_email';

export const HASH_RECIPES = {
  // Checkout: sha1(md5(UPPER(fields . PASSWORD))).
  checkoutSession: recipe('Checkout session (and hosted-fields session token)', 'sha1(md5(UPPER(order.number . order.amount . order.currency . order.description . PASSWORD)))', ['order.number', 'order.amount', 'order.currency', 'order.description']),
  checkoutStatusByPayment: recipe('Checkout status by payment_id', 'sha1(md5(UPPER(payment_id . PASSWORD)))', ['payment_id']),
  checkoutStatusByOrder: recipe('Checkout status by order_id', 'sha1(md5(UPPER(order_id . PASSWORD)))', ['order_id']),
  checkoutCaptureRefund: recipe('Checkout capture or refund', 'sha1(md5(UPPER(payment_id . amount . PASSWORD)))', ['payment_id', 'amount (left out when not sent)']),
  checkoutVoidRetry: recipe('Checkout void or retry', 'sha1(md5(UPPER(payment_id . PASSWORD)))', ['payment_id']),
  checkoutRecurring: recipe('Checkout recurring', 'sha1(md5(UPPER(recurring_init_trans_id . recurring_token . order.number . order.amount . order.description . PASSWORD)))', ['recurring_init_trans_id', 'recurring_token', 'order.number', 'order.amount', 'order.description']),
  checkoutCardCredit: recipe('Checkout card credit', 'sha1(md5(UPPER(order_id . order_amount . order_currency . order_description . PASSWORD)))', ['order_id', 'order_amount', 'order_currency', 'order_description']),
  testClock: recipe('Sandbox test clock', 'sha1(md5(UPPER(merchant_key . PASSWORD)))', ['merchant_key']),
  testClockAdvance: recipe('Sandbox test clock advance', 'sha1(md5(UPPER(merchant_key . days . seconds . PASSWORD)))', ['merchant_key', 'days', 'seconds (each left out when not sent)']),
  // S2S CARD: md5(UPPER(...)).
  f1: recipe('S2S CARD Formula 1', 'md5(UPPER(strrev(payer_email) . PASSWORD . strrev(first6 . last4)))', ['payer_email (left out when not sent)', 'the first 6 and last 4 digits of card_number']),
  f1Token: recipe('S2S CARD Formula 1 with a card_token', 'md5(UPPER(strrev(payer_email) . PASSWORD . strrev(card_token)))', ['payer_email (left out when not sent)', 'card_token']),
  f1OfPayment: recipe('S2S CARD Formula 1 over the original payment', 'md5(UPPER(strrev(payer_email) . PASSWORD . strrev(first6 . last4)))', [EMAIL_OF_PAYMENT, CARD_OF_PAYMENT]),
  f2: recipe('S2S CARD Formula 2', 'md5(UPPER(strrev(payer_email) . PASSWORD . trans_id . strrev(first6 . last4)))', ['trans_id', EMAIL_OF_PAYMENT, CARD_OF_PAYMENT]),
  transIdRecipe: recipe('the trans_id recipe', 'md5(UPPER(strrev(trans_id)) . PASSWORD)', ['trans_id']),
  f3: recipe('S2S CARD Formula 3', 'md5(UPPER(strrev(PASSWORD)))', []),
  f4: recipe('S2S CARD Formula 4', 'md5(UPPER(strrev(schedule_id . PASSWORD)))', ['schedule_id']),
  f5: recipe('S2S CARD Formula 5', 'md5(UPPER(PASSWORD . strrev(first6 . last4)))', ['the first 6 and last 4 digits of card_number (or card_token)']),
  f7: recipe('S2S CARD Formula 7', 'md5(UPPER(strrev(payer_email) . PASSWORD . order_id . strrev(first6 . last4)))', ['order_id', EMAIL_OF_PAYMENT, CARD_OF_PAYMENT]),
  orderIdRecipe: recipe('the order_id recipe', 'md5(UPPER(strrev(order_id)) . PASSWORD)', ['order_id']),
  // S2S APM.
  apmSale: recipe('S2S APM SALE', 'md5(UPPER(strrev(identifier . order_id . order_amount . order_currency . PASSWORD)))', ['identifier (left out when not sent)', 'order_id', 'order_amount', 'order_currency']),
  apmByTransId: recipe('S2S APM CAPTURE, VOID and GET_TRANS_STATUS', 'md5(UPPER(strrev(trans_id)) . PASSWORD)', ['trans_id']),
  apmCreditvoid: recipe('S2S APM CREDITVOID', 'md5(UPPER(strrev(trans_id . PASSWORD)))', ['trans_id']),
  apmCredit2Virtual: recipe('S2S APM CREDIT2VIRTUAL', 'md5(UPPER(strrev(order_id . order_amount . order_currency)) . PASSWORD)', ['order_id', 'order_amount', 'order_currency']),
} as const satisfies Record<string, HashRecipe>;

export type HashRecipeName = keyof typeof HASH_RECIPES;

/** The formula with the merchant's digest in place of md5 (Checkout keeps its outer sha1). */
export function formulaText(r: HashRecipe, digest: Digest): string {
  return digest === 'sha256' ? r.formula.replace(/md5\(/g, 'sha256(') : r.formula;
}

/**
 * The `hint` of a sandbox merchant's bad hash: the accepted formulas and what they cover, never a value.
 * PHP notation: `.` concatenates, strrev reverses, UPPER changes ASCII a-z only; digests are lower-case hex.
 */
export function hashHint(names: readonly HashRecipeName[], digest: Digest): string {
  const alternatives = names.map((name) => {
    const r: HashRecipe = HASH_RECIPES[name];
    const covers = r.fields.length > 0 ? `; covers ${r.fields.join(', ')} and your password` : '; covers your password only';
    return `${r.request}: ${formulaText(r, digest)}${covers}`;
  });
  return `Expected ${alternatives.join(' -- or -- ')}. Values are concatenated exactly as sent; see docs/merchants/hashes.md.`;
}
