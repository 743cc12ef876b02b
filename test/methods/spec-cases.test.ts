/**
 * The catalog against the spec text, written by hand from interface.md ("Method parameter sets", Limits):
 * the list of methods it must cover, and rows of (method, field, value, expected message) that the generated
 * table of catalog.test.ts cannot check without trusting the catalog itself.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { METHOD_LIST, findMethod, type MethodEntry, type ParamSpec } from '../../src/domain/methods/catalog.ts';
import { pageFields, prepareMethodParameters, prepareSessionParameters, validateMethodParameters, validateSessionParameters, type MethodContext } from '../../src/domain/methods/validate.ts';
import { MESSAGES } from '../../src/domain/errors.ts';
import { validContext, validParameters, withValue, type Segment } from './support.ts';
import { fitsMidSetting, midSupplied, midSettingRules, withPayeeValues } from '../../src/domain/methods/supplied.ts';

const M = MESSAGES;
const x = (n: number, c = 'x') => c.repeat(n);

/** Every method of the spec, by the key chosen for it (docs/merchants/methods.md maps the spec's names). */
const SPEC_KEYS = [
  'card',
  // Other method kinds, one entry per key, then the country-dependent fields kind
  'awcc', 'bank-code', 'document-id', 'document-id-2', 'document-id-type', 'installment-product', 'member-id',
  'personal-id-in', 'personal-id-br', 'personal-id-tr', 'personal-id-vn', 'personal-id-co', 'bank-data-tr', 'bank-data-th',
  'upi', 'upi-address', 'upi-collect', 'retail-credit-a', 'retail-credit-b', 'open-banking', 'mobile-money-narrative',
  'trading-debit', 'trading-withdrawal', 'conversion', 'crypto-amount', 'link-mail', 'link-sms', 'tax-id-ars', 'tax-id-mxn', 'country-fields',
  // Instant-payment request sets: the Pix QR variant and eight more
  'pix', 'instant-transfer-ar', 'instant-transfer-py', 'instant-transfer-pe', 'instant-service-pe', 'instant-transfer-cl', 'instant-spei-mx',
  'instant-pull-ar', 'instant-pull-pe',
  'voucher-partner',
  // Payouts and their providers' payins
  'mail-payout', 'pix-payout', 'pix-payin', 'out-india', 'out-indonesia', 'out-thailand', 'out-mexico', 'out-brazil', 'out-colombia', 'out-peru',
  'other-withdrawal', 'mobile-money-payout', 'mobile-money',
  // Wallets and their payment-page variants
  'applepay', 'googlepay', 'applepay-page', 'googlepay-page',
  // Other methods with fixed rules
  'reference-auth', 'ips', 'crypto-wallet', 'crypto-only', 'crypto-fiat', 'identity-transfer', 'mtn-mobile-money', 'otp-confirmation',
  'mobile-money-bj', 'mobile-money-tg', 'card-by-bank', 'bank-details', 'payer-challenge',
];

const EXPERIENCES = ['card_form', 'redirect', 'qr', 'details', 'app_confirmation', 'extra_fields', 'otp', 'link'];

function allMembers(params: readonly ParamSpec[]): ParamSpec[] {
  return params.flatMap((p) => [p, ...allMembers(p.members ?? []), ...allMembers(p.items?.members ?? [])]);
}

describe('catalog coverage and shape', () => {
  it('has exactly one entry per method of the spec', () => {
    assert.deepEqual(METHOD_LIST.map((m) => m.key).sort(), [...SPEC_KEYS].sort());
    assert.equal(METHOD_LIST.length, 71);
  });

  it('gives every entry a payer experience, operations, channels and the spec name it maps', () => {
    for (const m of METHOD_LIST) {
      assert.match(m.key, /^[a-z0-9]+(-[a-z0-9]+)*$/, m.key);
      assert.ok(EXPERIENCES.includes(m.experience), m.key);
      assert.ok(m.operations.length > 0 && (m.channels ?? []).length > 0 && m.specName.length > 0 && m.label.length > 0, m.key);
    }
  });

  it('uses every payer experience of the hosted page', () => {
    assert.deepEqual([...new Set(METHOD_LIST.map((m) => m.experience))].sort(), [...EXPERIENCES].sort());
  });

  it('gives a note to every conditional member whose condition it cannot check', () => {
    for (const m of METHOD_LIST) {
      const inSets = new Set((m.rules ?? []).flatMap((r) => (r.kind === 'allOrNone' ? r.members : [])));
      for (const p of allMembers(m.params)) {
        const checkable = p.collectOnPage || p.requiredIn || inSets.has(p.name) || (p.source && p.source !== 'parameters' && p.source !== 'request');
        if (p.requirement === 'conditional' && !checkable) assert.ok(p.note, `${m.key}.${p.name}`);
      }
    }
  });

  it('gives an example to every member with a pattern, and names only declared members in rules', () => {
    for (const m of METHOD_LIST) {
      for (const p of allMembers(m.params)) if (p.pattern && p.type === 'string') assert.ok(p.example !== undefined, `${m.key}.${p.name}`);
      const names = new Set(m.params.map((p) => p.name));
      for (const r of m.rules ?? []) {
        const used = 'members' in r ? r.members : [r.member, r.when.member];
        for (const n of used) assert.ok(names.has(n), `${m.key}: ${n}`);
      }
    }
  });

  it('holds the QR method as the spec states it', () => {
    const ips = findMethod('ips') as MethodEntry;
    assert.deepEqual(ips.currencies, ['EUR', 'RSD', 'BAM', 'MKD']);
    assert.equal(ips.experience, 'qr');
    assert.equal(ips.experienceOptions?.qrLifetimeSeconds, 60);
    assert.deepEqual(ips.channels, ['checkout', 's2s_apm']);
  });

  it('holds mobile-money CREDIT2VIRTUAL with its six currencies, on S2S APM and on Checkout credit (issue 17)', () => {
    const payout = findMethod('mobile-money-payout') as MethodEntry;
    assert.deepEqual(payout.currencies, ['GHS', 'KES', 'XOF', 'XAF', 'TZS', 'EGP']);
    assert.deepEqual(payout.channels, ['checkout', 's2s_apm']);
    assert.deepEqual(payout.operations, ['credit']);
  });

  it('fixes the instant-payment type per variant, and market BR for Pix', () => {
    const fixed = (key: string, name: string) => findMethod(key)?.params.find((p) => p.name === name)?.values;
    assert.deepEqual(fixed('pix', 'type'), ['PIX']);
    assert.deepEqual(fixed('pix', 'market'), ['BR']);
    const types: Record<string, string> = {
      'instant-transfer-ar': 'OFFLINE', 'instant-transfer-py': 'OFFLINE', 'instant-transfer-pe': 'OFFLINE', 'instant-service-pe': 'OFFLINE_SERVICE_PAYMENT',
      'instant-transfer-cl': 'OFFLINE', 'instant-spei-mx': 'SPEI', 'instant-pull-ar': 'PULL', 'instant-pull-pe': 'PULL',
    };
    for (const [key, type] of Object.entries(types)) assert.deepEqual(fixed(key, 'type'), [type], key);
  });
});

/**
 * One row: set `at` (a member path inside parameters.<method>, or `request:<path>`) to `value` (undefined
 * removes it) in an otherwise valid request, then expect `message` on that field, or no error at all.
 */
interface Row {
  method: string;
  at: string;
  value: unknown;
  message?: string;
  /** Other edits made first, e.g. the member a rule depends on. */
  also?: Record<string, unknown>;
  ctx?: Partial<MethodContext>;
  /** The failing field, when it is not `at`. */
  field?: string;
}

const S2S = { canCollect: false };
const PAGE = { canCollect: true };

const ROWS: Row[] = [
  // Card set 1: zero-padded 2-digit values, allowed values, all three required
  { method: 'card', at: 'bnrg_installm_def', value: '02', message: M.notChoice },
  { method: 'card', at: 'bnrg_installm_def', value: '00' },
  { method: 'card', at: 'bnrg_installm_months', value: '3', message: M.notValid },
  { method: 'card', at: 'bnrg_installm_months', value: '12' },
  { method: 'card', at: 'bnrg_installm_plan', value: '04', message: M.notChoice },
  { method: 'card', at: 'bnrg_installm_plan', value: '07' },
  { method: 'card', at: 'bnrg_installm_plan', value: undefined, message: M.blank },
  // Set 2: document_type cpf, alpha-2 fiscal country, all four required
  { method: 'card', at: 'document_type', value: 'rg', message: M.notChoice },
  { method: 'card', at: 'social_name', value: undefined, message: M.blank },
  { method: 'card', at: 'fiscal_country', value: 'BRA', message: M.exactLength(2) },
  { method: 'card', at: 'fiscal_country', value: 'XX', message: M.notCountry },
  // Set 3: descriptor up to 20
  { method: 'card', at: 'descriptor', value: x(21), message: M.tooLong(20) },
  { method: 'card', at: 'descriptor', value: x(20) },
  // Set 4: postcode at most 9 digits, country a 3-digit code
  { method: 'card', at: 'shipping_postcode', value: '1234567890', message: M.tooLong(9) },
  { method: 'card', at: 'shipping_postcode', value: 'SW1A1AA', message: M.notType('digit') },
  { method: 'card', at: 'shipping_postcode', value: '123456789' },
  { method: 'card', at: 'shipping_country', value: '76', message: M.exactLength(3) },
  { method: 'card', at: 'shipping_country', value: 'BRA', message: M.notType('digit') },
  { method: 'card', at: 'shipping_country', value: '076' },
  // S2S CARD sends the sets flat in parameters[...] and validates them as Checkout does (issue 17, item 9)
  { method: 'card', at: 'bnrg_installm_plan', value: undefined, ctx: S2S, message: M.blank },
  { method: 'card', at: 'bnrg_installm_months', value: '3', ctx: S2S, message: M.notValid },
  { method: 'card', at: 'document_type', value: 'rg', ctx: S2S, message: M.notChoice },
  { method: 'card', at: 'descriptor', value: x(21), ctx: S2S, message: M.tooLong(20) },
  { method: 'card', at: 'shipping_postcode', value: '1234567890', ctx: S2S, message: M.tooLong(9) },
  { method: 'card', at: 'shipping.country', value: 'BRA', ctx: S2S, message: M.exactLength(2) },
  { method: 'card', at: 'shipping.cost', value: '12.50', ctx: S2S, message: M.notType('digit') },
  // Set 6: shipping
  { method: 'card', at: 'shipping.street1', value: x(101), message: M.tooLong(100) },
  { method: 'card', at: 'shipping.city', value: x(81), message: M.tooLong(80) },
  { method: 'card', at: 'shipping.postcode', value: x(17), message: M.tooLong(16) },
  { method: 'card', at: 'shipping.country', value: 'BRA', message: M.exactLength(2) },
  { method: 'card', at: 'shipping.country', value: 'B1', message: M.notType('alpha') },
  { method: 'card', at: 'shipping.country', value: 'br' },
  { method: 'card', at: 'shipping.cost', value: '12.50', message: M.notType('digit') },
  { method: 'card', at: 'shipping.cost', value: '12345678901234', message: M.tooLong(13) },
  { method: 'card', at: 'shipping.comment', value: x(161), message: M.tooLong(160) },
  { method: 'card', at: 'shipping.preference', value: x(22), message: M.tooLong(21) },
  { method: 'card', at: 'shipping.type', value: 'pickup', message: M.notChoice },
  { method: 'card', at: 'shipping.type', value: 'return' },
  { method: 'card', at: 'shipping.email', value: x(129), message: M.tooLong(128) },
  // cart.items[n]
  { method: 'card', at: 'cart.items[0].price', value: '12345678901234', message: M.tooLong(13) },
  { method: 'card', at: 'cart.items[0].price', value: 1999 },
  { method: 'card', at: 'cart.items[0].quantity', value: '123456', message: M.tooLong(5) },
  { method: 'card', at: 'cart.items[0].currency', value: 'EU', message: M.exactLength(3) },
  { method: 'card', at: 'cart.items[0].description', value: x(2049), message: M.tooLong(2048) },
  { method: 'card', at: 'cart.items[0].commodityCode', value: '123456789', message: M.tooLong(8) },
  { method: 'card', at: 'cart.items[0].tax', value: x(7), message: M.tooLong(6) },
  { method: 'card', at: 'cart.items[0].taxCategory', value: 'ABC', message: M.tooLong(2) },
  { method: 'card', at: 'cart.items[0].shipping', value: '12345678901.00', message: M.notValid },
  { method: 'card', at: 'cart.items[0].shipping', value: '1234567890.99' },
  { method: 'card', at: 'cart.items[0].totalDiscountAmount', value: '10.005', message: M.notValid },
  { method: 'card', at: 'cart.items[0].quantityUnit', value: 'LB', message: M.notChoice },
  { method: 'card', at: 'cart.items[0].quantityUnit', value: 'COUNT' },
  { method: 'card', at: 'cart.items[0].productUrl', value: 'www.shop', message: M.notUrl },
  { method: 'card', at: 'cart.items[0].imageUrl', value: 'https://shop.example/i.png' },
  { method: 'card', at: 'cart.items[0].itemNumber', value: '1000', message: M.tooLong(3) },
  { method: 'card', at: 'cart.items[0].productCode', value: x(31), message: M.tooLong(30) },
  // cart.items[n].recipient
  { method: 'card', at: 'cart.items[0].recipient.salutation', value: 'Madame', message: M.tooLong(5) },
  { method: 'card', at: 'cart.items[0].recipient.firstName', value: x(49), message: M.tooLong(48) },
  { method: 'card', at: 'cart.items[0].recipient.country', value: '076' },
  { method: 'card', at: 'cart.items[0].recipient.country', value: '7600', message: M.notCountry },
  { method: 'card', at: 'cart.items[0].recipient.phone', value: '+4412', message: M.notType('digit') },
  // cart.payments[n] and marketPlace.sellers[n]
  { method: 'card', at: 'cart.payments[0].primary', value: 'yes', message: M.notType('bool') },
  { method: 'card', at: 'cart.payments[0].primary', value: false },
  { method: 'card', at: 'cart.payments[0].amount', value: '10.005', message: M.notValid },
  { method: 'card', at: 'cart.payments[0].currency', value: 'EURO', message: M.exactLength(3) },
  { method: 'card', at: 'marketPlace.sellers[0].amount', value: '12345678901234', message: M.tooLong(13) },
  { method: 'card', at: 'marketPlace.sellers[0].id', value: x(256), message: M.tooLong(255) },

  // Other method kinds
  { method: 'awcc', at: 'crypto_type', value: undefined, message: M.blank },
  { method: 'awcc', at: 'network_type', value: 'bsc', message: M.notChoice },
  { method: 'awcc', at: 'network_type', value: 'tron', also: { crypto_type: 'BTC' }, message: M.shouldBeBlank },
  { method: 'awcc', at: 'bech32', value: 'yes', message: M.notType('bool') },
  // accountId: optional, a string (the top-level accountId of the session goes here when absent: issue 17, item 7)
  { method: 'awcc', at: 'accountId', value: undefined },
  { method: 'awcc', at: 'accountId', value: 'ACC-777' },
  { method: 'awcc', at: 'bech32', value: 'true' },
  { method: 'bank-code', at: 'bank_account_number', value: undefined, message: M.blank },
  { method: 'bank-code', at: 'bank_code', value: 'DEUT', message: M.notValid },
  { method: 'bank-code', at: 'bank_code', value: 'DEUTDEFF500' },
  { method: 'document-id', at: 'document_number', value: undefined, ctx: S2S, message: M.blank },
  { method: 'document-id', at: 'document_number', value: undefined, ctx: PAGE },
  { method: 'document-id-2', at: 'document_number', value: undefined, ctx: S2S, message: M.blank },
  { method: 'document-id-type', at: 'document_type', value: undefined, ctx: { ...S2S, billingCountry: 'BR' }, message: M.blank },
  { method: 'document-id-type', at: 'document_number', value: undefined, ctx: { ...S2S, billingCountry: 'GT' } },
  { method: 'document-id-type', at: 'document_number', value: undefined, ctx: { ...S2S, billingCountry: 'PA' } },
  { method: 'document-id-type', at: 'document_type', value: undefined, ctx: { ...S2S, billingCountry: 'CR' } },
  { method: 'installment-product', at: 'product_reference_id', value: x(65), message: M.tooLong(64) },
  { method: 'installment-product', at: 'product_name', value: x(256), message: M.tooLong(255) },
  { method: 'installment-product', at: 'product_quantity', value: '12345', message: M.tooLong(4) },
  { method: 'installment-product', at: 'product_quantity', value: 9999 },
  { method: 'installment-product', at: 'product_url', value: 'shop', message: M.notUrl },
  { method: 'installment-product', at: 'product_sku', value: undefined },
  { method: 'member-id', at: 'memberId', value: undefined, ctx: S2S, message: M.blank },
  { method: 'personal-id-br', at: 'personal_id', value: undefined, ctx: S2S, message: M.blank },
  { method: 'personal-id-vn', at: 'personal_id', value: undefined, ctx: PAGE },
  { method: 'bank-data-th', at: 'accountName', value: x(65), message: M.tooLong(64) },
  { method: 'bank-data-tr', at: 'accountName', value: '', ctx: S2S, message: M.blank },
  { method: 'bank-data-tr', at: 'orgCode', value: undefined, ctx: PAGE },
  { method: 'upi', at: 'upi_id', value: undefined, ctx: PAGE, message: M.blank },
  { method: 'upi', at: 'upi_id', value: 'payer', message: M.notValid },
  { method: 'upi-address', at: 'upiAddress', value: undefined, message: M.blank },
  { method: 'upi-collect', at: 'upiAddress', value: undefined, ctx: PAGE },
  { method: 'retail-credit-a', at: 'category', value: undefined, message: M.blank },
  { method: 'retail-credit-a', at: 'buyer_registered_since', value: '2024-05-01 08:30:00', message: M.notDatetime },
  { method: 'retail-credit-a', at: 'buyer_registered_since', value: '2024-05-01T08:30:00+02:00', message: M.notValid },
  { method: 'retail-credit-a', at: 'buyer_registered_since', value: '2024-05-01T08:30:00.123Z' },
  { method: 'retail-credit-a', at: 'buyer_loyalty_level', value: undefined, message: M.blank },
  { method: 'retail-credit-a', at: 'buyer_loyalty_level', value: 'many', message: M.notType('integer') },
  { method: 'retail-credit-a', at: 'buyer_loyalty_level', value: '-1', message: M.notValid },
  { method: 'retail-credit-a', at: 'buyer_loyalty_level', value: 0 },
  { method: 'retail-credit-b', at: 'shipping_amount', value: 'ten', message: M.notType('numeric') },
  { method: 'retail-credit-b', at: 'product_sku', value: undefined, message: M.blank },
  { method: 'open-banking', at: 'payee_identifications', value: undefined, message: M.blank },
  { method: 'open-banking', at: 'payee_identifications', value: [], message: M.blank },
  { method: 'open-banking', at: 'payee_identifications[0].type', value: 'SWIFT', message: M.notChoice },
  { method: 'open-banking', at: 'payee_identifications[0].type', value: 'VIRTUAL_ACCOUNT_ID' },
  { method: 'open-banking', at: 'payee_identifications[0].identification', value: undefined, message: M.blank },
  { method: 'open-banking', at: 'payee_country', value: 'XX', message: M.notCountry },
  { method: 'mobile-money-narrative', at: 'NarrativeFileBase64', value: 'not base64!', message: M.notValid },
  { method: 'mobile-money-narrative', at: 'NarrativeFileBase64', value: undefined },
  { method: 'trading-debit', at: 'paymentGatewayName', value: undefined, message: M.blank },
  { method: 'trading-debit', at: 'tradingAccountLogin', value: undefined },
  { method: 'trading-withdrawal', at: 'address', value: undefined, message: M.blank },
  { method: 'trading-withdrawal', at: 'withdrawCurrency', value: 'bitcoin', message: M.notValid },
  { method: 'conversion', at: 'toCurrency', value: 'euro', message: M.notCurrency },
  { method: 'conversion', at: 'toCurrency', value: 'USDT' },
  { method: 'crypto-amount', at: 'cryptoCurrency', value: undefined, message: M.blank },
  { method: 'link-mail', at: 'SecurityQuestionAnswer', value: 'ab', message: M.tooShort(3) },
  { method: 'link-mail', at: 'SecurityQuestionAnswer', value: x(26), message: M.tooLong(25) },
  { method: 'link-mail', at: 'SecurityQuestionAnswer', value: 'my pet', message: M.notValid },
  { method: 'link-sms', at: 'SecurityQuestionAnswer', value: 'a b c', message: M.notValid },
  { method: 'link-sms', at: 'SecurityQuestion', value: undefined, also: { SecurityQuestionAnswer: undefined } },
  { method: 'tax-id-ars', at: 'bank_cuil', value: undefined, ctx: S2S, message: M.blank },
  { method: 'tax-id-mxn', at: 'bank_curp', value: undefined, ctx: PAGE },
  { method: 'country-fields', at: 'personal_identification_number', value: undefined, ctx: { ...S2S, billingCountry: 'BR' }, message: M.blank },
  { method: 'country-fields', at: 'personal_identification_number', value: undefined, ctx: { ...S2S, billingCountry: 'CL' }, message: M.blank },
  { method: 'country-fields', at: 'personal_identification_number', value: undefined, ctx: { ...S2S, billingCountry: 'CO' }, message: M.blank },
  { method: 'country-fields', at: 'personal_identification_number', value: undefined, ctx: { ...S2S, billingCountry: 'DE' } },

  // Instant-payment request sets
  { method: 'pix', at: 'market', value: 'AR', message: M.notChoice },
  { method: 'pix', at: 'type', value: 'OFFLINE', message: M.notChoice },
  { method: 'pix', at: 'type', value: undefined },
  { method: 'pix', at: 'expiryDate', value: undefined, message: M.blank },
  { method: 'pix', at: 'accountId', value: undefined, message: M.blank },
  { method: 'pix', at: 'callbackUrl', value: 'callback', message: M.notUrl },
  { method: 'pix', at: 'request:order.amount', value: 'ten', message: M.notType('numeric') },
  { method: 'instant-transfer-ar', at: 'redirectUrl', value: undefined, message: M.blank },
  { method: 'instant-transfer-ar', at: 'clientTaxId', value: undefined, message: M.blank },
  { method: 'instant-transfer-ar', at: 'clientTaxId', value: 'ABC', message: M.notValid },
  { method: 'instant-transfer-ar', at: 'clientTaxId', value: '12345678' },
  { method: 'instant-transfer-ar', at: 'type', value: 'PIX', message: M.notChoice },
  { method: 'instant-transfer-py', at: 'clientname', value: undefined, message: M.blank },
  { method: 'instant-transfer-pe', at: 'redirectUrl', value: undefined, message: M.blank },
  { method: 'instant-service-pe', at: 'type', value: 'OFFLINE', message: M.notChoice },
  { method: 'instant-transfer-cl', at: 'clientTaxId', value: '12.345.678-K' },
  { method: 'instant-transfer-cl', at: 'clientTaxId', value: 'ABC', message: M.notValid },
  { method: 'instant-spei-mx', at: 'type', value: 'SPEI' },
  { method: 'instant-pull-ar', at: 'bankDetails.alias', value: undefined, ctx: S2S, message: M.blank },
  { method: 'instant-pull-ar', at: 'bankDetails', value: undefined, ctx: PAGE },
  { method: 'instant-pull-pe', at: 'bankDetails.otp', value: undefined, ctx: S2S, message: M.blank },
  { method: 'instant-pull-pe', at: 'bankDetails', value: undefined, ctx: S2S, field: 'parameters.instant-pull-pe.bankDetails.phoneNumber', message: M.blank },

  // Voucher partner
  { method: 'voucher-partner', at: 'PayerId', value: undefined, message: M.blank },
  { method: 'voucher-partner', at: 'PayerBirthDate', value: '15/01/1990', message: M.notDate },
  { method: 'voucher-partner', at: 'PayType', value: '1', message: M.notChoice },
  { method: 'voucher-partner', at: 'PartnerId', value: undefined },

  // Payouts
  { method: 'mail-payout', at: 'SecurityQuestion', value: x(9), message: M.tooShort(10) },
  { method: 'mail-payout', at: 'SecurityQuestion', value: x(41), message: M.tooLong(40) },
  { method: 'mail-payout', at: 'SecurityQuestionAnswer', value: 'ab', message: M.tooShort(3) },
  { method: 'mail-payout', at: 'SecurityQuestionAnswer', value: x(41), message: M.tooLong(40) },
  { method: 'mail-payout', at: 'SecurityQuestionAnswer', value: 'two words' },
  { method: 'mail-payout', at: 'payer_email', value: `${x(56)}@x.io`, message: M.tooLong(60) },
  { method: 'mail-payout', at: 'payer_first_name', value: x(61), message: M.tooLong(60) },
  { method: 'mail-payout', at: 'payee_last_name', value: undefined, message: M.blank },
  { method: 'mail-payout', at: 'request:order.description', value: 'Fee', message: M.tooShort(5) },
  { method: 'mail-payout', at: 'request:order.description', value: x(201), message: M.tooLong(200) },
  { method: 'mail-payout', at: 'fee_calculation_method', value: 'per_item', message: M.notChoice },
  { method: 'mail-payout', at: 'account_uuid', value: undefined },
  // Payouts on Checkout: the payee is on the page, which asks for what the request lacks (issue 17); S2S APM has no page.
  { method: 'mail-payout', at: 'SecurityQuestion', value: undefined, ctx: PAGE },
  { method: 'mail-payout', at: 'SecurityQuestion', value: undefined, ctx: S2S, message: M.blank },
  { method: 'mail-payout', at: 'SecurityQuestionAnswer', value: undefined, ctx: PAGE },
  { method: 'mail-payout', at: 'payer_email', value: undefined, ctx: PAGE },
  { method: 'mail-payout', at: 'payer_first_name', value: undefined, ctx: PAGE },
  { method: 'mail-payout', at: 'SecurityQuestion', value: x(41), ctx: PAGE, message: M.tooLong(40) },
  { method: 'pix-payout', at: 'key', value: undefined, ctx: PAGE },
  { method: 'pix-payout', at: 'key', value: undefined, ctx: S2S, message: M.blank },
  { method: 'pix-payout', at: 'key', value: 'not a key!', message: M.notValid },
  { method: 'pix-payout', at: 'key', value: 'payee@example.com' },
  { method: 'pix-payout', at: 'key', value: '+5511987654321' },
  { method: 'pix-payout', at: 'key', value: '12345678000199' },
  { method: 'pix-payout', at: 'key', value: '123e4567-e89b-12d3-a456-426614174000' },
  { method: 'pix-payout', at: 'key', value: `${x(170)}@example.com`, message: M.tooLong(180) },
  { method: 'pix-payout', at: 'branch_identifier', value: '123', message: M.notValid },
  { method: 'pix-payin', at: 'fine', value: undefined, message: M.blank },
  { method: 'pix-payin', at: 'fine', value: '5', also: { type_fine: 'NONE' }, message: M.equalTo('0') },
  { method: 'pix-payin', at: 'fine', value: '0', also: { type_fine: 'NONE' } },
  { method: 'pix-payin', at: 'debtor_name', value: x(26), message: M.tooLong(25) },
  { method: 'pix-payin', at: 'type_document', value: 'RG', message: M.notChoice },
  { method: 'pix-payin', at: 'debtor_document', value: '12345678901', also: { type_document: 'CNPJ' }, message: M.notValid },
  { method: 'pix-payin', at: 'debtor_document', value: '12345678000199', also: { type_document: 'CNPJ' } },
  { method: 'pix-payin', at: 'branch_identifier', value: undefined, ctx: S2S },
  { method: 'out-india', at: 'ifscCode', value: 'HDFC000123', message: M.notValid },
  { method: 'out-india', at: 'ifscCode', value: x(17), message: M.tooLong(16) },
  { method: 'out-india', at: 'paymentMethod', value: x(7), message: M.tooLong(6) },
  { method: 'out-india', at: 'cashAccount', value: x(33), message: M.tooLong(32) },
  { method: 'out-indonesia', at: 'name', value: undefined },
  { method: 'out-indonesia', at: 'cashAccount', value: undefined, message: M.blank },
  { method: 'out-thailand', at: 'paymentMethod', value: x(10) },
  { method: 'out-mexico', at: 'paymentMethod', value: undefined, message: M.blank },
  { method: 'out-brazil', at: 'paymentMethod', value: 'PIX', message: M.notChoice },
  { method: 'out-brazil', at: 'paymentMethod', value: 'EVP' },
  { method: 'out-brazil', at: 'taxNumber', value: '123', message: M.notValid },
  { method: 'out-colombia', at: 'cashAccountType', value: 'SAVINGS', message: M.notChoice },
  { method: 'out-colombia', at: 'idType', value: 'PA', message: M.notChoice },
  { method: 'out-colombia', at: 'identity', value: 'a-b', message: M.notValid },
  { method: 'out-peru', at: 'cci_', value: x(21), message: M.tooLong(20) },
  { method: 'out-peru', at: 'idType', value: 'XX', message: M.notChoice },
  { method: 'out-peru', at: 'idType', value: 'RUC' },
  { method: 'out-peru', at: 'email', value: 'x', message: M.notEmail },
  { method: 'out-peru', at: 'phone', value: undefined, message: M.blank },
  { method: 'out-peru', at: 'phone', value: undefined, ctx: PAGE },
  { method: 'out-brazil', at: 'taxNumber', value: undefined, ctx: PAGE },
  { method: 'out-brazil', at: 'taxNumber', value: '123', ctx: PAGE, message: M.notValid },
  { method: 'out-india', at: 'ifscCode', value: undefined, ctx: PAGE },
  { method: 'out-colombia', at: 'identity', value: undefined, ctx: S2S, message: M.blank },
  { method: 'trading-withdrawal', at: 'address', value: undefined, ctx: PAGE },
  { method: 'trading-withdrawal', at: 'withdrawCurrency', value: undefined, ctx: PAGE },
  // The account the money goes to: required where no page can ask, asked on the Checkout page (issue 17).
  { method: 'other-withdrawal', at: 'ToAccountNumber', value: undefined, ctx: S2S, message: M.blank },
  { method: 'other-withdrawal', at: 'ToAccountNumber', value: undefined, ctx: PAGE },
  { method: 'other-withdrawal', at: 'ToProvince', value: undefined, ctx: S2S },
  { method: 'other-withdrawal', at: 'Email', value: 'x', message: M.notEmail },
  { method: 'mobile-money-payout', at: 'mobile_money_operator', value: undefined, message: M.blank },
  { method: 'mobile-money-payout', at: 'mobile_number', value: 'call me', message: M.notValid },
  { method: 'mobile-money-payout', at: 'customer_email', value: 'x', message: M.notEmail },
  { method: 'mobile-money-payout', at: 'customer_name', value: undefined },
  { method: 'mobile-money-payout', at: 'request:payee_email', value: undefined, message: M.blank },
  { method: 'mobile-money-payout', at: 'request:payee_first_name', value: undefined, message: M.blank },
  { method: 'mobile-money-payout', at: 'request:payee_first_name', value: undefined, ctx: PAGE },
  { method: 'mobile-money-payout', at: 'request:payee_email', value: 'x', ctx: PAGE, message: M.notEmail },
  { method: 'mobile-money-payout', at: 'mobile_number', value: undefined, ctx: PAGE },
  { method: 'mobile-money-payout', at: 'mobile_money_operator', value: undefined, ctx: PAGE },
  { method: 'mobile-money', at: 'request:order.number', value: 'ORD-1', message: M.tooShort(8) },
  { method: 'mobile-money', at: 'request:customer.email', value: undefined, ctx: S2S, message: M.blank },
  { method: 'mobile-money', at: 'request:customer.email', value: undefined, ctx: PAGE },
  { method: 'mobile-money', at: 'mobile_number', value: undefined, ctx: S2S, message: M.blank },

  // Wallet payment-page variants
  { method: 'applepay-page', at: 'request:error_url', value: undefined, ctx: PAGE, message: M.blank },
  { method: 'applepay-page', at: 'request:billing_address.zip', value: undefined, ctx: PAGE },
  { method: 'applepay-page', at: 'request:billing_address.zip', value: undefined, ctx: S2S, message: M.blank },
  { method: 'applepay-page', at: 'request:billing_address.state', value: undefined, ctx: S2S },
  { method: 'googlepay-page', at: 'request:customer.email', value: undefined, ctx: S2S, message: M.blank },

  // Methods with fixed rules
  { method: 'reference-auth', at: 'request:order.number', value: x(41), message: M.tooLong(40) },
  { method: 'reference-auth', at: 'request:order.number', value: x(40) },
  { method: 'identity-transfer', at: 'request:customer.name', value: 'Madonna', message: M.notValid },
  { method: 'mtn-mobile-money', at: 'request:billing_address.phone', value: undefined, ctx: S2S, message: M.blank },
  { method: 'mtn-mobile-money', at: 'request:billing_address.phone', value: undefined, ctx: PAGE },
  { method: 'otp-confirmation', at: 'payer_phone', value: undefined, ctx: S2S, message: M.blank },
  { method: 'otp-confirmation', at: 'receiver_phone', value: undefined, ctx: S2S },
  { method: 'bank-details', at: 'bank_name', value: undefined, ctx: S2S, message: M.blank },
  { method: 'bank-details', at: 'branch_code', value: undefined, ctx: PAGE },
  { method: 'payer-challenge', at: 'request:billing_address.zip', value: undefined, ctx: S2S, message: M.blank },
  { method: 'payer-challenge', at: 'request:customer.name', value: 'John', message: M.notValid },
];

/** `cart.items[0].price` -> ['cart', 'items', 0, 'price']. */
const segments = (path: string): Segment[] => path.split('.').flatMap((part) => part.split(/\[(\d+)\]/).filter((s) => s !== '').map((s) => (/^\d+$/.test(s) ? Number(s) : s)));

function runRow(row: Row) {
  const entry = findMethod(row.method);
  assert.ok(entry, row.method);
  const ctx = validContext(entry, row.ctx);
  let params = validParameters(entry);
  let request = ctx.request ?? {};
  for (const [at, value] of [...Object.entries(row.also ?? {}), [row.at, row.value] as const]) {
    if (at.startsWith('request:')) request = withValue(request, [at.slice('request:'.length)], value);
    else params = withValue(params, segments(at), value);
  }
  return { entry, errors: validateMethodParameters(entry, params, { ...ctx, request }) };
}

describe('the spec text, row by row', () => {
  for (const row of ROWS) {
    const shown = row.value === undefined ? 'absent' : JSON.stringify(row.value).slice(0, 30);
    const where = row.ctx?.billingCountry ? ` in ${row.ctx.billingCountry}` : row.ctx?.canCollect === true ? ' (the page asks)' : '';
    it(`${row.method} ${row.at} ${shown}${where}: ${row.message ?? 'accepted'}`, () => {
      const { entry, errors } = runRow(row);
      if (row.message === undefined) return assert.deepEqual(errors, []);
      const field = row.field ?? (row.at.startsWith('request:') ? row.at.slice('request:'.length) : `parameters.${entry.key}.${row.at}`);
      assert.deepEqual(errors.find((e) => e.field === field), { field, message: row.message }, JSON.stringify(errors));
    });
  }
});

describe('currencies', () => {
  const withCurrency = (key: string, currency: string, extra: Partial<MethodContext> = {}) => {
    const entry = findMethod(key) as MethodEntry;
    return validateMethodParameters(entry, validParameters(entry), validContext(entry, { currency, ...extra }));
  };
  const refused = [{ field: 'order.currency', message: M.notChoice }];

  it('takes the QR method in EUR, RSD, BAM and MKD only', () => {
    for (const c of ['EUR', 'RSD', 'BAM', 'MKD']) assert.deepEqual(withCurrency('ips', c), [], c);
    for (const c of ['USD', 'GBP']) assert.deepEqual(withCurrency('ips', c), refused, c);
  });

  it('pays mobile money out in GHS, KES, XOF, XAF, TZS and EGP only, naming the S2S field', () => {
    for (const c of ['GHS', 'KES', 'XOF', 'XAF', 'TZS', 'EGP']) assert.deepEqual(withCurrency('mobile-money-payout', c), [], c);
    const s2sName = (path: string) => path.replace('.', '_');
    assert.deepEqual(withCurrency('mobile-money-payout', 'USD', { fieldName: s2sName }), [{ field: 'order_currency', message: M.notChoice }]);
  });

  it('keeps the crypto-only method to crypto and the converting one to fiat', () => {
    assert.deepEqual(withCurrency('crypto-only', 'USDT'), []);
    assert.deepEqual(withCurrency('crypto-only', 'EUR'), refused);
    assert.deepEqual(withCurrency('crypto-fiat', 'EUR'), []);
    assert.deepEqual(withCurrency('crypto-fiat', 'BTC'), refused);
  });

  it('reads the tax-id currencies from their keys', () => {
    assert.deepEqual(withCurrency('tax-id-ars', 'ARS'), []);
    assert.deepEqual(withCurrency('tax-id-mxn', 'ARS'), refused);
  });
});

describe('a whole session parameters object', () => {
  const ctx = { operation: 'purchase' as const, currency: 'EUR', canCollect: true };

  it('refuses keys that are not offered methods, session_expiry among them', () => {
    const errors = validateSessionParameters(['card'], { card: {}, session_expiry: 60, ips: {} }, ctx);
    assert.deepEqual(errors, [
      { field: 'parameters.session_expiry', message: M.extraField },
      { field: 'parameters.ips', message: M.extraField },
    ]);
  });

  it('refuses session fields inside a method and names nested paths in full', () => {
    const errors = validateSessionParameters(['card'], { card: { success_url: 'https://x.example', cart: { items: [{}, { price: '1.5' }] } } }, ctx);
    assert.deepEqual(errors, [
      { field: 'parameters.card.success_url', message: M.extraField },
      { field: 'parameters.card.cart.items[1].price', message: M.notType('digit') },
    ]);
  });

  it('validates an offered method that has no parameters entry at all', () => {
    assert.deepEqual(validateSessionParameters(['card', 'bank-code'], undefined, ctx), [
      { field: 'parameters.bank-code.bank_code', message: M.blank },
      { field: 'parameters.bank-code.bank_account_number', message: M.blank },
    ]);
  });

  it('leaves unknown method keys to the methods check and refuses a parameters that is not an object', () => {
    assert.deepEqual(validateSessionParameters(['no-such-method'], { 'no-such-method': { a: 1 } }, ctx), []);
    assert.deepEqual(validateSessionParameters(['card'], ['card'], ctx), [{ field: 'parameters', message: M.notType('array') }]);
  });
});

describe('what goes on to the provider', () => {
  const narrative = findMethod('mobile-money-narrative') as MethodEntry;

  it('drops NarrativeFileName or NarrativeFileBase64 sent alone, and keeps them together', () => {
    assert.deepEqual(prepareMethodParameters(narrative, { NarrativeFileName: 'a.txt', ProviderReferenceText: 'ref' }), { ProviderReferenceText: 'ref' });
    assert.deepEqual(prepareMethodParameters(narrative, { NarrativeFileBase64: 'aGVsbG8=' }), {});
    const both = { NarrativeFileName: 'a.txt', NarrativeFileBase64: 'aGVsbG8=' };
    assert.deepEqual(prepareMethodParameters(narrative, both), both);
  });

  it('fills in the values a variant fixes, and keeps what the merchant sent', () => {
    const prepared = prepareSessionParameters({ pix: { reference: 'r1' }, card: { descriptor: 'Shop' } });
    assert.deepEqual(prepared, { pix: { reference: 'r1', market: 'BR', type: 'PIX' }, card: { descriptor: 'Shop' } });
    assert.equal(prepareSessionParameters({ 'instant-pull-pe': {} })['instant-pull-pe']?.type, 'PULL');
  });
});

describe('the fields the hosted page asks for', () => {
  const fields = (key: string, value: unknown, ctx: Partial<MethodContext> = {}) =>
    pageFields(findMethod(key) as MethodEntry, value, { operation: 'purchase', ...ctx }).map((f) => `${f.path}${f.required ? '' : '?'}`);

  it('asks for the document only where it is required', () => {
    assert.deepEqual(fields('document-id-type', {}, { billingCountry: 'BR' }), ['document_number', 'document_type']);
    assert.deepEqual(fields('document-id-type', { document_type: 'DNI' }, { billingCountry: 'BR' }), ['document_number']);
    for (const country of ['GT', 'PA', 'CR']) assert.deepEqual(fields('document-id-type', {}, { billingCountry: country }), [], country);
  });

  it('asks for the Personal Identification Number for Brazil, Chile and Colombia only', () => {
    for (const country of ['BR', 'CL', 'CO']) assert.deepEqual(fields('country-fields', {}, { billingCountry: country }), ['personal_identification_number'], country);
    assert.deepEqual(fields('country-fields', {}, { billingCountry: 'DE' }), []);
    assert.deepEqual(fields('country-fields', {}, {}), [], 'unknown country: asked once the country is known');
  });

  it('asks for nested and request fields, and offers optional ones', () => {
    assert.deepEqual(fields('instant-pull-ar', {}), ['bankDetails.cbu', 'bankDetails.alias']);
    assert.deepEqual(fields('mtn-mobile-money', {}, { request: { 'billing_address.phone': '' } }), ['billing_address.phone']);
    assert.deepEqual(fields('mtn-mobile-money', {}, { request: { 'billing_address.phone': '+233241234567' } }), []);
    assert.deepEqual(fields('pix-payin', { debtor_name: 'Ana' }), ['branch_identifier?', 'source_account_number?', 'type_document?', 'debtor_document?']);
    assert.deepEqual(fields('otp-confirmation', {}), ['payer_phone', 'receiver_phone?']);
  });
});

describe('what a payout takes from its payee and its MID (issue 17)', () => {
  const method = (key: string) => findMethod(key) as MethodEntry;
  const asked = (key: string, params: Record<string, unknown>, request: Record<string, unknown> = {}) =>
    pageFields(method(key), params, { operation: 'credit', request }).map((f) => `${f.path}${f.required ? '' : '?'}`);

  it('asks the payee for every mail-payout member the request lacks, and nothing it sent', () => {
    assert.deepEqual(asked('mail-payout', {}), ['payer_first_name', 'payee_last_name', 'payer_email', 'SecurityQuestion', 'SecurityQuestionAnswer']);
    assert.deepEqual(asked('mail-payout', { payer_first_name: 'Jane', payee_last_name: 'Roe', payer_email: 'j@x.io' }), ['SecurityQuestion', 'SecurityQuestionAnswer']);
  });

  it('asks for the account of each withdrawal country and for the Pix key', () => {
    assert.deepEqual(asked('out-brazil', {}), ['paymentMethod', 'cashAccount', 'taxNumber']);
    assert.deepEqual(asked('out-indonesia', {}), ['paymentMethod', 'cashAccount', 'name?', 'accountNo?']);
    assert.deepEqual(asked('pix-payout', {}), ['key']);
    assert.deepEqual(asked('other-withdrawal', {}), ['ToAccountNumber', 'ToAccountName']);
    assert.deepEqual(asked('trading-withdrawal', { withdrawCurrency: 'USDT' }), ['address', 'tradingAccountLogin?']);
  });

  it('asks the mobile-money payee for the request fields too, unless the request has them', () => {
    assert.deepEqual(asked('mobile-money-payout', {}), ['mobile_money_operator', 'mobile_number', 'customer_email', 'payee_first_name', 'payee_last_name', 'payee_email']);
    assert.deepEqual(asked('mobile-money-payout', { mobile_money_operator: 'mtn-gh', mobile_number: '+233241234567', customer_email: 'k@x.io' }, { payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: 'k@x.io' }), []);
  });

  it("fills members from the payee's values where the request sent none; sent values win", () => {
    const payee = { firstName: 'Jane', lastName: 'Roe', name: 'Jane Roe', email: 'jane@x.io', phone: '+233241234567' };
    assert.deepEqual(withPayeeValues(method('mail-payout'), {}, payee), { payer_first_name: 'Jane', payee_last_name: 'Roe', payer_email: 'jane@x.io' });
    assert.deepEqual(withPayeeValues(method('mail-payout'), { payer_email: 'other@x.io' }, payee).payer_email, 'other@x.io');
    assert.deepEqual(withPayeeValues(method('mobile-money-payout'), {}, payee), { mobile_number: '+233241234567', customer_email: 'jane@x.io', customer_name: 'Jane Roe' });
    assert.deepEqual(withPayeeValues(method('out-peru'), { cashAccount: '1' }, { email: 'p@x.io' }), { cashAccount: '1', email: 'p@x.io' });
    assert.deepEqual(withPayeeValues(method('pix-payout'), {}, payee), {}, 'the Pix key is never guessed from the payee');
  });

  it('takes account_uuid and fee_calculation_method (default account_level) from the MID, and names a missing account_uuid', () => {
    assert.deepEqual(midSupplied(method('mail-payout'), {}, {}), { values: { fee_calculation_method: 'account_level' }, missing: ['account_uuid'] });
    assert.deepEqual(midSupplied(method('mail-payout'), { account_uuid: 'sent-in-request' }, { account_uuid: 'acc-1', fee_calculation_method: 'transaction_level' }),
      { values: { account_uuid: 'acc-1', fee_calculation_method: 'transaction_level' }, missing: [] }, 'the MID setting, never the request');
  });

  it("takes the Pix payout's source account and branch from the MID only when the request lacks them; names them when neither has them", () => {
    assert.deepEqual(midSupplied(method('pix-payout'), {}, { source_account_number: '123', branch_identifier: '0001' }), { values: { source_account_number: '123', branch_identifier: '0001' }, missing: [] });
    assert.deepEqual(midSupplied(method('pix-payout'), { branch_identifier: '0002' }, { branch_identifier: '0001' }), { values: {}, missing: ['source_account_number'] });
    assert.deepEqual(midSupplied(method('pix-payout'), { source_account_number: '9', branch_identifier: '0002' }, {}), { values: {}, missing: [] });
  });

  it('knows which MID settings the methods read and the values they allow', () => {
    const rules = midSettingRules(METHOD_LIST);
    assert.deepEqual(rules.get('fee_calculation_method'), { values: ['account_level', 'transaction_level'] });
    assert.ok(rules.has('account_uuid'));
    assert.equal(fitsMidSetting(rules.get('fee_calculation_method'), 'transaction_level'), true);
    assert.equal(fitsMidSetting(rules.get('fee_calculation_method'), 'per_item'), false);
    assert.equal(fitsMidSetting(rules.get('branch_identifier'), '0001'), true);
    assert.equal(fitsMidSetting(rules.get('branch_identifier'), '12'), false, 'a Pix branch set in the MID has 4 digits too');
    assert.equal(fitsMidSetting(rules.get('billingAddressRequired'), true), true, 'settings no method reads are left alone');
  });
});

/**
 * The provider-side rules of interface.md the provider kinds implement (issue 17 item 8), written by hand from the
 * spec's sentences ("Other methods with fixed rules", Authentication 4 to 6, the voucher-partner table, the PIX
 * payin and mobile-money payin paragraphs, the crypto-address row), not read back from the kind table.
 */
describe('provider kinds against the spec text', async () => {
  const { PROVIDER_KINDS, CHALLENGE_FIELDS, REFERENCE_PUBLIC_ID_MAX, splitName, currencyNumeric, currencyAlpha } = await import('../../src/domain/methods/provider-kinds.ts');
  const ROWS_BY_SPEC: readonly [string, string, string][] = [
    // [kind, authentication the spec gives it, the method key it serves]
    ['reference-auth', 'token', 'reference-auth'], // "authorization header with a token obtained from a token call ... private key"
    ['voucher-partner', 'signature', 'voucher-partner'], // "signs with a private signature of the provider and sends a Signature field"
    ['header-key', 'header_key', ''], // "authenticates with two headers on every call: X-API-Key and X-API-Secret"
    ['pix-payin', 'header_key', 'pix-payin'],
    ['mobile-money', 'header_key', 'mobile-money'],
    ['crypto-address', 'header_key', 'awcc'],
    ['crypto-fiat', 'header_key', 'crypto-fiat'],
    ['card-by-bank', 'header_key', 'card-by-bank'],
    ['identity-transfer', 'header_key', 'identity-transfer'],
    ['payer-challenge', 'header_key', 'payer-challenge'],
  ];

  it('gives each kind its authentication and method', () => {
    for (const [kind, auth, method] of ROWS_BY_SPEC) {
      const k = PROVIDER_KINDS[kind as keyof typeof PROVIDER_KINDS];
      assert.equal(k.auth, auth, kind);
      if (method) assert.ok(k.methods.includes(method) && findMethod(method), kind);
    }
    assert.equal(Object.keys(PROVIDER_KINDS).length, ROWS_BY_SPEC.length);
  });

  it('asks the eight challenge fields and limits the public id of Create reference to 40', () => {
    // billing_address.phone, customer.email, customer.name (first), customer.name (last), billing_address.country, .address, .city, .zip
    assert.deepEqual([...CHALLENGE_FIELDS].sort(), ['address', 'city', 'country', 'email', 'first_name', 'last_name', 'phone', 'zip']);
    assert.equal(REFERENCE_PUBLIC_ID_MAX, 40);
  });

  it('splits customer.name into first and last name', () => {
    assert.deepEqual(splitName('Maria da Silva'), { firstName: 'Maria', lastName: 'da Silva' });
    assert.deepEqual(splitName('  John   Doe '), { firstName: 'John', lastName: 'Doe' });
    assert.deepEqual(splitName('Cher'), { firstName: 'Cher', lastName: '' });
  });

  it('sends the voucher partner order.currency as the ISO 4217 int', () => {
    assert.equal(currencyNumeric('EUR'), 978);
    assert.equal(currencyNumeric('usd'), 840);
    assert.equal(currencyNumeric('BRL'), 986);
    assert.equal(currencyNumeric('XXX'), undefined);
    assert.equal(currencyAlpha(978), 'EUR');
    assert.equal(currencyAlpha('978'), undefined, 'an int, not a text');
  });
});
