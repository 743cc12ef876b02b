/**
 * Payout methods (credit operation) and the payins that share their providers: mail payout, PIX payout and
 * payin, withdrawals by country, the other-provider withdrawal, mobile-money CREDIT2VIRTUAL and its Checkout
 * payin. Parameters go in parameters.<method_key> (Checkout) or parameters[name] (S2S).
 */
import { conditional, fromGateway, fromMid, fromRequest, optional, required } from './params.ts';
import type { Channel, MethodEntry, ParamSpec } from './types.ts';

const CHANNELS: readonly Channel[] = ['checkout', 's2s_apm'];
const ORDER_AMOUNT = fromRequest('order.amount', 'required', { type: 'number' });
const MID_OR_SENT = 'Mandatory, but may be set in the MID instead, which the request does not show: checked only when sent.';
const PHONE_WITH_CODE = { pattern: '^\\+?[0-9]{8,15}$', example: '+233241234567' };

const MAIL_PAYOUT: MethodEntry = {
  key: 'mail-payout',
  label: 'Payout by e-mail',
  kind: 'email payout',
  specName: 'Mail-payout variant (<prefix>-payout, kind: email payout)',
  experience: 'link',
  experienceOptions: { sendBy: 'email' },
  operations: ['credit'],
  channels: CHANNELS,
  params: [
    required('payer_first_name', { maxLength: 60, note: 'The spec writes "payer_first_name with payee_last_name (required, string max 60)": each is required and at most 60 characters.' }),
    required('payee_last_name', { maxLength: 60 }),
    required('payer_email', { type: 'email', minLength: 2, maxLength: 60 }),
    fromRequest('order.amount', 'required', { type: 'number', note: 'order_amount.' }),
    fromRequest('order.currency', 'required', { note: 'order_currency.' }),
    fromRequest('order.description', 'required', { minLength: 5, maxLength: 200, note: 'order_description, 5 to 200 characters.' }),
    required('SecurityQuestion', { minLength: 10, maxLength: 40 }),
    required('SecurityQuestionAnswer', { minLength: 3, maxLength: 40 }),
    fromMid('account_uuid', 'From the MID setting.'),
    fromMid('fee_calculation_method', 'MID option.', { values: ['account_level', 'transaction_level'], default: 'account_level' }),
  ],
};

const PIX_PAYOUT: MethodEntry = {
  key: 'pix-payout',
  label: 'Pix payout',
  kind: 'PIX payout',
  specName: 'Instant-pay payout (<prefix>-payout, kind: PIX payout)',
  experience: 'details',
  operations: ['credit'],
  channels: CHANNELS,
  params: [
    ORDER_AMOUNT,
    required('key', {
      maxLength: 180,
      pattern: '^([A-Za-z0-9-]{1,36}|[^@\\s]+@[^@\\s]+\\.[^@\\s]+|\\+?[0-9]{13})$',
      example: '12345678901',
      note: "The recipient's key: a random key of up to 36 alphanumerics (dashes allowed, as in its UUID form), CPF 11 digits, CNPJ 14 digits, e-mail up to 180 characters, or phone of 13 digits with country code.",
    }),
    conditional('source_account_number', { note: MID_OR_SENT }),
    conditional('branch_identifier', { pattern: '^[0-9]{4}$', example: '0001', note: `4 digits. ${MID_OR_SENT}` }),
  ],
};

const pageOptional = (name: string, label: string, opts: Partial<ParamSpec> = {}): ParamSpec => optional(name, { collectOnPage: true, label, note: 'May be set in the MID or collected on the page.', ...opts });

const PIX_PAYIN: MethodEntry = {
  key: 'pix-payin',
  label: 'Pix',
  kind: 'PIX payin',
  specName: 'Instant-pay payin (<prefix>-payin, kind: PIX payin)',
  experience: 'qr',
  operations: ['purchase'],
  channels: CHANNELS,
  params: [
    ORDER_AMOUNT,
    required('fine', { type: 'number', note: 'The fine or interest value per type_fine (VALUE or PERCENT); 0 when NONE.' }),
    optional('type_fine', { values: ['VALUE', 'PERCENT', 'NONE'], note: 'Named by the rule for fine; the spec does not say whether it is required.' }),
    pageOptional('branch_identifier', 'Branch', { pattern: '^[0-9]{4}$', example: '0001', note: '4 digits. May be set in the MID or collected on the page.' }),
    pageOptional('source_account_number', 'Account number'),
    pageOptional('type_document', 'Document type', { values: ['CPF', 'CNPJ'] }),
    pageOptional('debtor_document', 'Document number', { pattern: '^([0-9]{11}|[0-9]{14})$', example: '12345678901', note: '11 (CPF) or 14 (CNPJ) digits. May be set in the MID or collected on the page.' }),
    pageOptional('debtor_name', 'Name', { maxLength: 25 }),
  ],
  rules: [
    { kind: 'equalsWhen', member: 'fine', value: '0', when: { member: 'type_fine', values: ['NONE'] }, note: 'fine is 0 when type_fine is NONE.' },
    { kind: 'patternWhen', member: 'debtor_document', pattern: '^[0-9]{11}$', when: { member: 'type_document', values: ['CPF'] }, note: 'A CPF has 11 digits.' },
    { kind: 'patternWhen', member: 'debtor_document', pattern: '^[0-9]{14}$', when: { member: 'type_document', values: ['CNPJ'] }, note: 'A CNPJ has 14 digits.' },
  ],
  notes: ['The response returns qr_code_id (connector id), payment status, base_64_image (QR image) and pix_copy_and_paste; a callback follows to the URL set in the connector\'s admin panel.'],
};

const PAYMENT_METHOD = required('paymentMethod', { maxLength: 6, note: 'A code (String 6); the spec lists the codes for Brazil only.' });
const CASH_ACCOUNT = required('cashAccount', { maxLength: 32 });
const CASH_ACCOUNT_TYPE = required('cashAccountType', { maxLength: 32, values: ['CORRIENTE', 'AHORROS'] });

const WITHDRAWALS: readonly [string, string, readonly ParamSpec[]][] = [
  ['india', 'India', [PAYMENT_METHOD, CASH_ACCOUNT, required('ifscCode', { maxLength: 16, pattern: '^[A-Za-z0-9]{11}$', example: 'HDFC0001234', note: 'String 16 holding 11 alphanumerics.' })]],
  ['indonesia', 'Indonesia', [PAYMENT_METHOD, CASH_ACCOUNT, optional('name'), optional('accountNo')]],
  ['thailand', 'Thailand', [required('paymentMethod', { note: 'A code; the spec gives no length for Thailand.' }), CASH_ACCOUNT]],
  ['mexico', 'Mexico', [PAYMENT_METHOD, CASH_ACCOUNT]],
  ['brazil', 'Brazil', [
    required('paymentMethod', { maxLength: 6, values: ['CPF', 'CNPJ', 'PHONE', 'EMAIL', 'EVP'] }),
    CASH_ACCOUNT,
    required('taxNumber', { pattern: '^([0-9]{11}|[0-9]{14})$', example: '12345678901', note: 'CPF 11 digits or CNPJ 14.' }),
  ]],
  ['colombia', 'Colombia', [
    PAYMENT_METHOD,
    CASH_ACCOUNT,
    CASH_ACCOUNT_TYPE,
    required('idType', { values: ['CC', 'CE'] }),
    required('identity', { pattern: '^[A-Za-z0-9]+$', example: '1020304050', note: 'Alphanumeric.' }),
  ]],
  ['peru', 'Peru', [
    PAYMENT_METHOD,
    CASH_ACCOUNT,
    CASH_ACCOUNT_TYPE,
    required('cci_', { maxLength: 20, note: 'Spelled cci_ as in the spec (String 20).' }),
    required('name'),
    required('email', { type: 'email' }),
    required('phone'),
    required('idType', { values: ['DNI', 'CE', 'PAS', 'RUC'] }),
    required('identity'),
  ]],
];

const withdrawal = ([slug, country, params]: (typeof WITHDRAWALS)[number]): MethodEntry => ({
  key: `out-${slug}`,
  label: `Withdrawal (${country})`,
  kind: 'withdrawal by country',
  specName: `Withdrawal methods by country (<prefix>-out-<country>): ${country}`,
  experience: 'details',
  operations: ['credit'],
  channels: CHANNELS,
  params,
});

const UNSTATED = 'Conditional; the spec states no condition: checked only when sent.';

const OTHER_WITHDRAWAL: MethodEntry = {
  key: 'other-withdrawal',
  label: 'Withdrawal',
  kind: 'withdrawal via another provider',
  specName: 'Withdrawal via another provider (<prefix>-withdrawal)',
  experience: 'details',
  operations: ['credit'],
  channels: CHANNELS,
  params: [
    ...['ToAccountNumber', 'ToAccountName', 'ToProvince', 'ToCity', 'ToBranch', 'ToAddress'].map((name) => conditional(name, { note: UNSTATED })),
    conditional('Email', { type: 'email', note: UNSTATED }),
    conditional('Phone', { note: UNSTATED }),
  ],
};

const MOBILE_MONEY_CURRENCIES = ['GHS', 'KES', 'XOF', 'XAF', 'TZS', 'EGP'];

const MOBILE_MONEY_PAYOUT: MethodEntry = {
  key: 'mobile-money-payout',
  label: 'Mobile money payout',
  kind: 'mobile money payout',
  specName: 'Mobile-money payout (S2S APM, action CREDIT2VIRTUAL)',
  experience: 'details',
  experienceOptions: { action: 'CREDIT2VIRTUAL' },
  operations: ['credit'],
  channels: ['s2s_apm'],
  currencies: MOBILE_MONEY_CURRENCIES,
  params: [
    fromRequest('order.amount', 'required', { type: 'number', note: 'order_amount. Respect the operator minimum and maximum (not given by the spec); zero-exponent currencies such as XOF and XAF apply.' }),
    fromRequest('order.description', 'optional', { note: 'order_description.' }),
    required('mobile_money_operator', { note: 'Operator slug, one per country and operator.' }),
    required('mobile_number', { ...PHONE_WITH_CODE, note: "Recipient number in the operator's country format, with country code." }),
    required('customer_email', { type: 'email', note: 'Recipient e-mail.' }),
    optional('customer_name'),
    fromRequest('payee_first_name', 'required'),
    fromRequest('payee_last_name', 'required'),
    fromRequest('payee_email', 'required', { type: 'email' }),
  ],
  notes: [
    "Countries covered: Ghana (GHS), Kenya (KES), Cote d'Ivoire (XOF), Cameroon (XAF), Tanzania (TZS), Egypt (EGP).",
    'action CREDIT2VIRTUAL, client_key, brand (this key), order_id and hash are the S2S APM envelope, checked by that channel.',
  ],
};

const MOBILE_MONEY_PAYIN: MethodEntry = {
  key: 'mobile-money',
  label: 'Mobile money',
  kind: 'mobile money payin',
  specName: "The mobile-money payout provider's payin via Checkout",
  experience: 'app_confirmation',
  experienceOptions: { authMethod: 'STK_PROMPT' },
  operations: ['purchase'],
  channels: ['checkout'],
  params: [
    fromRequest('order.number', 'required', { minLength: 8, note: 'The unique public id, at least 8 characters: the merchant order number.' }),
    fromRequest('order.description', 'optional'),
    ORDER_AMOUNT,
    fromRequest('order.currency', 'required'),
    fromRequest('customer.name', 'optional', { note: 'payer.name.' }),
    fromRequest('customer.email', 'required', { type: 'email', collectOnPage: true, label: 'E-mail', note: 'payer.email.' }),
    required('mobile_number', { ...PHONE_WITH_CODE, collectOnPage: true, label: 'Mobile number', note: "The payer's mobile number, digits with country code, collected on the page." }),
    fromGateway('callback_url', "Optional; the gateway's own notification address.", { requirement: 'optional', type: 'url' }),
    fromGateway('verify_url', "Optional redirect; the gateway's return page.", { requirement: 'optional', type: 'url' }),
    fromMid('fee_bearer', 'Admin panel: true means the merchant bears the fee; false (default) means the customer does.', { requirement: 'optional', type: 'boolean', default: false }),
  ],
  notes: ['The charge answers auth_method STK_PROMPT and a message; the payer confirms on the phone.'],
};

export const PAYOUTS: readonly MethodEntry[] = [MAIL_PAYOUT, PIX_PAYOUT, PIX_PAYIN, ...WITHDRAWALS.map(withdrawal), OTHER_WITHDRAWAL, MOBILE_MONEY_PAYOUT, MOBILE_MONEY_PAYIN];
