/**
 * "Other methods with fixed rules": the reference-and-authorization family, the QR method (ips), and the
 * methods whose rules are fixed by the spec rather than by a parameter table.
 */
import { fromGateway, fromPage, fromRequest, onPage, optional, required } from './params.ts';
import type { Channel, MethodEntry, Operation, ParamSpec } from './types.ts';

const PAYIN: readonly Operation[] = ['purchase', 'debit'];
const CHANNELS: readonly Channel[] = ['checkout', 's2s_apm'];

/** QR method provider states -> payment status (interface spec, States; bank callbacks ACSC and RJCT). */
export const QR_PROVIDER_STATES: Readonly<Record<string, 'PENDING' | 'SETTLED' | 'DECLINED'>> = {
  pending: 'PENDING',
  executed: 'SETTLED',
  ACSC: 'SETTLED',
  rejected: 'DECLINED',
  RJCT: 'DECLINED',
};

const FULL_NAME = { pattern: '^\\S+\\s+\\S', example: 'John Doe', note: 'First and last name are taken from it, so it holds both.' };
const onPageRequest = (path: string, label: string, opts: Partial<ParamSpec> = {}): ParamSpec => fromRequest(path, 'required', { collectOnPage: true, label, ...opts });

const REFERENCE_AUTH: MethodEntry = {
  key: 'reference-auth',
  label: 'Bank payment',
  kind: 'reference and authorization',
  specName: 'Reference-and-authorization methods (country family <prefix>-<country>)',
  experience: 'redirect',
  operations: ['purchase'],
  channels: CHANNELS,
  params: [
    fromGateway('authorization', 'Header of both calls: the token from a token call whose input is the private key configured in the admin panel.'),
    fromRequest('order.amount', 'required', { type: 'number', note: 'Create reference: order.amount (number).' }),
    fromRequest('order.number', 'required', { maxLength: 40, note: 'Create reference: the public id, up to 40 positions: the merchant order number.' }),
    fromGateway('single_payment', "Create reference: the single-or-recurring flag, true single, false recurring; set from the session's recurring_init.", { type: 'boolean' }),
    fromGateway('gateway_id', 'Create payment: the id Create reference answered.'),
  ],
  notes: ['Nine-plus countries, not named by the spec: one entry serves the family; a country key is an entry copied from this one.'],
};

const IPS: MethodEntry = {
  key: 'ips',
  label: 'IPS QR',
  kind: 'QR',
  specName: 'QR method (key ips)',
  experience: 'qr',
  experienceOptions: { brand: 'IPS', engine: 'VA', qrLifetimeSeconds: 60, showsOrder: true },
  operations: ['purchase'],
  channels: CHANNELS,
  currencies: ['EUR', 'RSD', 'BAM', 'MKD'],
  params: [],
  notes: [
    'Sale with redirect. On Checkout the page shows the QR with order number, amount and description; on S2S APM the answer carries redirect_params.qr_code as Base64 and the merchant renders it.',
    'The QR expires after 1 minute by default.',
    'Provider states: pending -> PENDING; executed or bank callback ACSC -> SETTLED; rejected or bank callback RJCT -> DECLINED.',
  ],
};

const CRYPTO_WALLETS: readonly MethodEntry[] = [
  {
    key: 'crypto-wallet',
    label: 'Crypto wallet',
    kind: 'crypto wallet',
    specName: 'Crypto wallet methods: the one creating a wallet address without a fixed amount',
    experience: 'details',
    experienceOptions: { fixedAmount: false },
    operations: PAYIN,
    channels: CHANNELS,
    params: [],
    notes: ['Creates a wallet address without a fixed amount and shows it on Checkout.'],
  },
  {
    key: 'crypto-only',
    label: 'Crypto',
    kind: 'crypto wallet',
    specName: 'Crypto wallet methods: the one accepting only crypto from merchants',
    experience: 'details',
    operations: PAYIN,
    channels: CHANNELS,
    currencyKind: 'crypto',
    params: [],
  },
  {
    key: 'crypto-fiat',
    label: 'Pay in crypto',
    kind: 'crypto wallet',
    specName: 'Crypto wallet methods: the one accepting fiat and converting it to crypto',
    experience: 'details',
    operations: ['purchase'],
    channels: CHANNELS,
    currencyKind: 'fiat',
    params: [],
    notes: ['The conversion is configured on the merchant mapping; payin only.'],
  },
];

const deviceConfirmation = (code: string, country: string): MethodEntry => ({
  key: `mobile-money-${code}`,
  label: `Mobile money (${country})`,
  kind: 'code confirmation, mobile money',
  specName: `Code-confirmation methods: the ${country} mobile-money method`,
  experience: 'app_confirmation',
  operations: PAYIN,
  channels: CHANNELS,
  params: [],
  notes: ['Requires confirmation on the mobile device.'],
});

const FIXED: readonly MethodEntry[] = [
  {
    key: 'identity-transfer',
    label: 'Bank transfer',
    kind: 'payer-identity transfer',
    specName: 'Payer-identity transfer method',
    experience: 'redirect',
    experienceOptions: { payment_methods: 'OBT' },
    operations: PAYIN,
    channels: CHANNELS,
    params: [onPageRequest('customer.name', 'Full name', FULL_NAME)],
    notes: ['Differs from a sibling wallet by setting payment_methods to OBT.'],
  },
  {
    key: 'mtn-mobile-money',
    label: 'Mobile Money',
    kind: 'MTN-style',
    specName: 'Phone-identified mobile money method (kind: MTN-style)',
    experience: 'app_confirmation',
    operations: PAYIN,
    channels: CHANNELS,
    params: [onPageRequest('billing_address.phone', 'Phone number', { note: 'Taken from billing_address.phone; when absent the payer enters it.' })],
    notes: ['Appears under another label (Mobile Money) on the selection page.'],
  },
  {
    key: 'otp-confirmation',
    label: 'Pay by phone',
    kind: 'code confirmation',
    specName: 'Code-confirmation methods (beeline-style)',
    experience: 'otp',
    operations: PAYIN,
    channels: CHANNELS,
    params: [
      onPage('payer_phone', 'Your phone number', { note: "The payer's phone, collected; the OTP goes to it. The member name is ours." }),
      optional('receiver_phone', { collectOnPage: true, label: "Receiver's phone number", note: "The optional receiver's phone, collected. The member name is ours." }),
    ],
  },
  deviceConfirmation('bj', 'Benin'),
  deviceConfirmation('tg', 'Togo'),
  {
    key: 'card-by-bank',
    label: 'Card by bank',
    kind: 'card by bank',
    specName: 'Card-by-bank methods',
    experience: 'extra_fields',
    experienceOptions: { confirmationCode: 'any stage' },
    operations: PAYIN,
    channels: CHANNELS,
    params: [
      fromPage('beneficiary_details', "Beneficiary details entered by the payer on the provider's page; the spec does not name the fields."),
      fromPage('account', "An account the payer picks from the list the provider offers on its page."),
    ],
    notes: ['A confirmation code may be asked at any stage.'],
  },
  {
    key: 'bank-details',
    label: 'Bank details',
    kind: 'bank details',
    specName: 'Bank-details methods',
    experience: 'details',
    operations: PAYIN,
    channels: CHANNELS,
    params: [
      required('bank_name', { collectOnPage: true, label: 'Bank name' }),
      required('bank_code', { collectOnPage: true, label: 'Bank Code' }),
      required('branch_name', { collectOnPage: true, label: 'Branch Name' }),
      required('branch_code', { collectOnPage: true, label: 'Branch Code' }),
      required('account_number', { collectOnPage: true, label: 'Account Number' }),
    ],
    notes: ['The payer enters the bank data; payment details are then shown. Member names are ours, from the spec\'s labels.'],
  },
  {
    key: 'payer-challenge',
    label: 'Pay by phone (challenge)',
    kind: 'payer challenge',
    specName: 'Payer-challenge method (<prefix>-payin, card-less flow)',
    experience: 'otp',
    operations: ['purchase'],
    channels: CHANNELS,
    params: [
      fromGateway('challengeId', 'Obtained first by the gateway, from a request carrying the fields below.'),
      onPageRequest('billing_address.phone', 'Phone number'),
      onPageRequest('customer.email', 'E-mail'),
      onPageRequest('customer.name', 'Full name', { ...FULL_NAME, note: 'Both first and last name are required; they are taken from it.' }),
      onPageRequest('billing_address.country', 'Country'),
      onPageRequest('billing_address.address', 'Address'),
      onPageRequest('billing_address.city', 'City'),
      onPageRequest('billing_address.zip', 'Postcode'),
    ],
  },
];

export const FIXED_RULES: readonly MethodEntry[] = [REFERENCE_AUTH, IPS, ...CRYPTO_WALLETS, ...FIXED];
