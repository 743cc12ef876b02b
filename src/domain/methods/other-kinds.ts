/**
 * The rows of the spec's "Other method kinds" table, one entry per method (a row naming several keys gives
 * several entries), and the country-dependent fields kind that follows the table.
 */
import { arrayOf, onPage, optional, required, conditional } from './params.ts';
import type { MethodEntry, Operation, Channel } from './types.ts';

const PAYIN: readonly Operation[] = ['purchase', 'debit'];
const PAYOUT: readonly Operation[] = ['credit'];
const BOTH_CHANNELS: readonly Channel[] = ['checkout', 's2s_apm'];

/** What every method of this file shares unless it says otherwise. */
const apm = (entry: Omit<MethodEntry, 'operations' | 'channels'> & Partial<Pick<MethodEntry, 'operations' | 'channels'>>): MethodEntry => ({
  operations: PAYIN,
  channels: BOTH_CHANNELS,
  ...entry,
});

/** UPI virtual payment address: handle@provider. The spec names the field only; the shape is NPCI's. */
const UPI_ADDRESS = { pattern: '^[^@\\s]+@[^@\\s]+$', example: 'payer@upi', note: 'A UPI virtual payment address, name@handle (the spec states no format; this is the UPI one).' };

/** A crypto symbol such as BTC or USDT. */
const CRYPTO_SYMBOL = { pattern: '^[A-Z0-9]{2,10}$', example: 'USDT', note: 'A crypto symbol such as BTC or USDT (2 to 10 capitals or digits).' };

const SECURITY_QA = [
  optional('SecurityQuestion'),
  optional('SecurityQuestionAnswer', { minLength: 3, maxLength: 25, pattern: '^\\S+$', example: 'blue42', note: 'No spaces, 3 to 25 characters.' }),
];

const PERSONAL_ID_COUNTRIES: readonly [string, string][] = [
  ['in', 'India'],
  ['br', 'Brazil'],
  ['tr', 'Turkey'],
  ['vn', 'Vietnam'],
  ['co', 'Colombia'],
];

const personalId = ([code, country]: [string, string]): MethodEntry =>
  apm({
    key: `personal-id-${code}`,
    label: `Personal ID (${country})`,
    kind: 'personal id',
    specName: `personal id methods (several keys): the ${country} one`,
    experience: 'extra_fields',
    params: [onPage('personal_id', 'Personal ID', { note: `Collected on the page when absent, for ${country}.` })],
  });

const bankData = (code: string, country: string): MethodEntry =>
  apm({
    key: `bank-data-${code}`,
    label: `Bank account (${country})`,
    kind: 'payer bank data',
    specName: `payer bank data methods (Turkey or Thailand): the ${country} one`,
    experience: 'extra_fields',
    params: [
      onPage('orgCode', 'Bank'),
      onPage('accountName', 'Account holder name', { minLength: 1, maxLength: 64, note: 'Must match the real payer (checked by the provider).' }),
      onPage('accountNumber', 'Account number', { note: 'Must match the real account (checked by the provider).' }),
    ],
  });

const INSTALLMENT_NOTE = 'Which are needed depends on the sub-provider the payer picks, unknown when the request arrives: checked only when sent.';

export const OTHER_KINDS: readonly MethodEntry[] = [
  apm({
    key: 'awcc',
    label: 'Crypto address',
    kind: 'crypto address',
    specName: 'crypto-address method (awcc)',
    experience: 'details',
    params: [
      optional('network_type', { values: ['eth', 'tron'], default: 'eth', note: 'Only USDT has network types.' }),
      optional('bech32', { type: 'boolean', default: false, note: 'true returns a bech32 segwit address for BTC or a cash address for BCH.' }),
      required('crypto_type', { example: 'USDT', note: 'A crypto symbol such as BTC, BCH or USDT.' }),
      optional('accountId'),
    ],
    rules: [{ kind: 'onlyWhen', member: 'network_type', when: { member: 'crypto_type', values: ['USDT'] }, note: 'Only USDT has network types.' }],
  }),
  apm({
    key: 'bank-code',
    label: 'Bank account',
    kind: 'bank code',
    specName: 'bank-account method (kind: bank code)',
    experience: 'app_confirmation',
    params: [
      required('bank_code', { pattern: '^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$', example: 'DEUTDEFF', note: 'A SWIFT bank code (BIC, 8 or 11 characters).' }),
      required('bank_account_number'),
    ],
    notes: ['The payer may need to confirm in an app.'],
  }),
  apm({
    key: 'document-id',
    label: 'Document ID',
    kind: 'document id, redirect',
    specName: 'document-id redirect methods (two keys): the first',
    experience: 'redirect',
    params: [onPage('document_number', 'Document number')],
  }),
  apm({
    key: 'document-id-2',
    label: 'Document ID (second provider)',
    kind: 'document id, redirect',
    specName: 'document-id redirect methods (two keys): the second',
    experience: 'redirect',
    params: [onPage('document_number', 'Document number')],
  }),
  apm({
    key: 'document-id-type',
    label: 'Document ID and type',
    kind: 'document id plus type, redirect',
    specName: 'document-id plus type redirect method',
    experience: 'redirect',
    params: [
      onPage('document_number', 'Document number', { exemptIn: ['GT', 'PA', 'CR'], note: 'Not required for transactions in Guatemala, Panama or Costa Rica.' }),
      onPage('document_type', 'Document type', { exemptIn: ['GT', 'PA', 'CR'], note: 'Not required for transactions in Guatemala, Panama or Costa Rica; the spec lists no values.' }),
    ],
  }),
  apm({
    key: 'installment-product',
    label: 'Instalments',
    kind: 'product items',
    specName: 'installment-product redirect method (kind: product items)',
    experience: 'redirect',
    params: [
      conditional('product_reference_id', { maxLength: 64, note: INSTALLMENT_NOTE }),
      conditional('product_name', { maxLength: 255, note: INSTALLMENT_NOTE }),
      conditional('product_quantity', { type: 'number', shape: 'N', maxLength: 4, note: `A number of at most 4 digits. ${INSTALLMENT_NOTE}` }),
      conditional('product_sku', { note: INSTALLMENT_NOTE }),
      conditional('product_category', { note: INSTALLMENT_NOTE }),
      conditional('product_url', { type: 'url', note: INSTALLMENT_NOTE }),
      conditional('product_image_url', { type: 'url', note: INSTALLMENT_NOTE }),
      conditional('product_type', { note: INSTALLMENT_NOTE }),
    ],
  }),
  apm({
    key: 'member-id',
    label: 'Member ID',
    kind: 'member id',
    specName: 'member id method',
    experience: 'extra_fields',
    params: [onPage('memberId', 'Member ID')],
  }),
  ...PERSONAL_ID_COUNTRIES.map(personalId),
  bankData('tr', 'Turkey'),
  bankData('th', 'Thailand'),
  apm({
    key: 'upi',
    label: 'UPI',
    kind: 'UPI',
    specName: 'UPI methods: the one taking upi_id',
    experience: 'app_confirmation',
    params: [required('upi_id', UPI_ADDRESS)],
    notes: ['The payer approves the request in a UPI app.'],
  }),
  apm({
    key: 'upi-address',
    label: 'UPI address',
    kind: 'UPI',
    specName: 'UPI methods: the one taking upiAddress',
    experience: 'app_confirmation',
    params: [required('upiAddress', UPI_ADDRESS)],
    notes: ['The payer approves the request in a UPI app.'],
  }),
  apm({
    key: 'upi-collect',
    label: 'UPI (address on the page)',
    kind: 'UPI',
    specName: 'UPI methods: the further one showing a UPI address field on the page',
    experience: 'extra_fields',
    params: [onPage('upiAddress', 'UPI address', UPI_ADDRESS)],
  }),
  apm({
    key: 'retail-credit-a',
    label: 'Buy now, pay later',
    kind: 'retail credit A',
    specName: 'deferred-payment method (kind: retail credit A)',
    experience: 'redirect',
    params: [
      required('category'),
      required('buyer_registered_since', { type: 'datetime', pattern: '(Z|[+-]00:?00)$', example: '2024-05-01T08:30:00Z', note: 'ISO 8601 datetime in UTC.' }),
      required('buyer_loyalty_level', { type: 'integer', pattern: '^[0-9]+$', default: 0, note: 'Counts successfully placed orders. The spec gives a default of 0 but lists the field as required: it is required.' }),
    ],
  }),
  apm({
    key: 'retail-credit-b',
    label: 'Pay later',
    kind: 'retail credit B',
    specName: 'deferred-payment method (kind: retail credit B)',
    experience: 'redirect',
    params: [
      required('shipping_amount', { type: 'number' }),
      required('tax_amount', { type: 'number' }),
      required('product_amount', { type: 'number' }),
      required('product_reference_id'),
      required('product_type'),
      required('product_sku'),
    ],
  }),
  apm({
    key: 'open-banking',
    label: 'Bank transfer (open banking)',
    kind: 'account identification',
    specName: 'open-banking method (kind: account identification)',
    experience: 'redirect',
    params: [
      required('payee_name'),
      required('payee_country', { minLength: 2, maxLength: 2, format: 'country', note: 'Read as an ISO 3166-1 alpha-2 code, as billing_address.country.' }),
      arrayOf('payee_identifications', 'required', [
        required('type', {
          values: ['SORT_CODE', 'ACCOUNT_NUMBER', 'IBAN', 'BBAN', 'BIC', 'PAN', 'MASKED_PAN', 'MSISDN', 'BSB', 'NCC', 'ABA', 'ABA_WIRE', 'ABA_ACH', 'EMAIL', 'ROLL_NUMBER', 'BLZ', 'IFS', 'CLABE', 'CTN', 'BRANCH_CODE', 'VIRTUAL_ACCOUNT_ID'],
        }),
        required('identification'),
      ]),
    ],
  }),
  apm({
    key: 'mobile-money-narrative',
    label: 'Mobile money',
    kind: 'narrative',
    specName: 'mobile money method (kind: narrative)',
    experience: 'app_confirmation',
    params: [
      optional('AccountProviderCode'),
      optional('NarrativeFileName'),
      optional('NarrativeFileBase64', { format: 'base64', note: 'The file in base-64.' }),
      optional('ProviderReferenceText', { note: "Appended to the provider's confirmation message." }),
    ],
    rules: [{ kind: 'together', members: ['NarrativeFileName', 'NarrativeFileBase64'], note: 'Used together; each is ignored without the other.' }],
  }),
  apm({
    key: 'trading-debit',
    label: 'Trading deposit',
    kind: 'trading',
    specName: 'trading deposit method (<prefix>-debit, kind: trading)',
    experience: 'redirect',
    params: [required('paymentGatewayName'), required('paymentCurrency', CRYPTO_SYMBOL), optional('tradingAccountLogin')],
  }),
  apm({
    key: 'trading-withdrawal',
    label: 'Trading withdrawal',
    kind: 'trading',
    specName: 'trading withdrawal method (<prefix>-withdrawal)',
    experience: 'details',
    operations: PAYOUT,
    params: [
      required('withdrawCurrency', { ...CRYPTO_SYMBOL, collectOnPage: true, label: 'Currency to receive', note: `${CRYPTO_SYMBOL.note} On Checkout the page asks when the request lacks it.` }),
      required('address', { collectOnPage: true, label: 'Wallet address', note: "The payer's wallet address. On Checkout the page asks when the request lacks it." }),
      optional('tradingAccountLogin', { collectOnPage: true, label: 'Trading account login' }),
    ],
  }),
  apm({
    key: 'conversion',
    label: 'Currency conversion',
    kind: 'conversion',
    specName: 'conversion method',
    experience: 'redirect',
    params: [required('toCurrency', { format: 'currency', note: 'A valid currency code (3 to 6 capitals, crypto included) to convert to.' })],
  }),
  apm({
    key: 'crypto-amount',
    label: 'Crypto',
    kind: 'crypto amount',
    specName: 'crypto amount method',
    experience: 'details',
    params: [required('cryptoCurrency')],
  }),
  apm({
    key: 'link-mail',
    label: 'Payment link by e-mail',
    kind: 'link',
    specName: 'link-by-mail method',
    experience: 'link',
    experienceOptions: { sendBy: 'email' },
    params: SECURITY_QA,
  }),
  apm({
    key: 'link-sms',
    label: 'Payment link by SMS',
    kind: 'link',
    specName: 'link-by-SMS method',
    experience: 'link',
    experienceOptions: { sendBy: 'sms' },
    params: SECURITY_QA,
  }),
  apm({
    key: 'tax-id-ars',
    label: 'Tax ID (Argentina)',
    kind: 'tax id',
    specName: 'tax-id methods (<prefix>-ars)',
    experience: 'extra_fields',
    currencies: ['ARS'],
    params: [onPage('bank_cuil', 'CUIL', { note: 'Argentina. When not sent, the payer is asked for it.' })],
    notes: ['Currency ARS, read from the key suffix.'],
  }),
  apm({
    key: 'tax-id-mxn',
    label: 'Tax ID (Mexico)',
    kind: 'tax id',
    specName: 'tax-id methods (<prefix>-mxn)',
    experience: 'extra_fields',
    currencies: ['MXN'],
    params: [onPage('bank_curp', 'CURP', { note: 'Mexico. When not sent, the payer is asked for it.' })],
    notes: ['Currency MXN, read from the key suffix.'],
  }),
  apm({
    key: 'country-fields',
    label: 'Local payment',
    kind: 'country-dependent fields',
    specName: 'country-dependent fields kind (no parameters of its own)',
    experience: 'extra_fields',
    params: [
      onPage('personal_identification_number', 'Personal Identification Number', {
        requiredIn: ['BR', 'CL', 'CO'],
        note: 'Required for billing countries Brazil, Chile and Colombia. The spec gives the kind no parameters of its own: the page asks for it; a merchant may send it to spare the payer (and must, where no page can ask).',
      }),
    ],
    notes: ['The country of billing_address changes the Checkout fields shown.'],
  }),
];
