/**
 * Payout methods (credit operation) and the payins that share their providers: mail payout, PIX payout and
 * payin, withdrawals by country, the other-provider withdrawal, mobile-money CREDIT2VIRTUAL and its Checkout
 * payin. Parameters go in parameters.<method_key> (Checkout) or parameters[name] (S2S).
 */
import { conditional, fromGateway, fromMid, fromRequest, optional, required } from './params.ts';
import type { Channel, MethodEntry, ParamSpec } from './types.ts';

const CHANNELS: readonly Channel[] = ['checkout', 's2s_apm'];
const ORDER_AMOUNT = fromRequest('order.amount', 'required', { type: 'number' });
const MID_OR_SENT = 'Mandatory: sent in the request or set in the MID (its settings); with neither the payout is declined before the provider is asked. Its shape is checked when sent.';
const PHONE_WITH_CODE = { pattern: '^\\+?[0-9]{8,15}$', example: '+233241234567' };
/**
 * On Checkout the payee is on the hosted page: what a payout needs and the request lacks, the page asks for
 * (the members stay required on S2S APM, where no page can ask).
 */
const PAYEE_ASKS = 'Required; on Checkout the hosted page asks the payee when the request lacks it.';
const asked = (name: string, label: string, opts: Partial<ParamSpec> = {}): ParamSpec => required(name, { collectOnPage: true, label, note: PAYEE_ASKS, ...opts });

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
    asked('payer_first_name', 'First name', { maxLength: 60, payee: 'firstName', note: `The spec writes "payer_first_name with payee_last_name (required, string max 60)": each is required and at most 60 characters. Taken from payee_first_name when absent. ${PAYEE_ASKS}` }),
    asked('payee_last_name', 'Last name', { maxLength: 60, payee: 'lastName', note: `Taken from payee_last_name when absent. ${PAYEE_ASKS}` }),
    asked('payer_email', 'E-mail the payout link goes to', { type: 'email', minLength: 2, maxLength: 60, payee: 'email', note: `The link is sent there. Taken from payee.email (or customer.email) when absent. ${PAYEE_ASKS}` }),
    fromRequest('order.amount', 'required', { type: 'number', note: 'order_amount.' }),
    fromRequest('order.currency', 'required', { note: 'order_currency.' }),
    fromRequest('order.description', 'required', { minLength: 5, maxLength: 200, note: 'order_description, 5 to 200 characters.' }),
    asked('SecurityQuestion', 'Security question', { minLength: 10, maxLength: 40, note: `The recipient answers it on the link before the money is released. ${PAYEE_ASKS}` }),
    asked('SecurityQuestionAnswer', 'Answer to the security question', { minLength: 3, maxLength: 40 }),
    fromMid('account_uuid', 'From the MID setting (settings.account_uuid of the MID the session routes to); without it the payout is declined.'),
    fromMid('fee_calculation_method', 'MID option (settings.fee_calculation_method).', { values: ['account_level', 'transaction_level'], default: 'account_level' }),
  ],
  notes: ['The provider e-mails the link to payer_email; the recipient answers the security question there (three wrong answers refuse the payout), and the outcome reaches the merchant as a callback of type credit.'],
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
    asked('key', 'Pix key', {
      maxLength: 180,
      pattern: '^([A-Za-z0-9-]{1,36}|[^@\\s]+@[^@\\s]+\\.[^@\\s]+|\\+?[0-9]{13})$',
      example: '12345678901',
      note: `The recipient's key: a random key of up to 36 alphanumerics (dashes allowed, as in its UUID form), CPF 11 digits, CNPJ 14 digits, e-mail up to 180 characters, or phone of 13 digits with country code. ${PAYEE_ASKS}`,
    }),
    conditional('source_account_number', { orMid: true, note: MID_OR_SENT }),
    conditional('branch_identifier', { orMid: true, pattern: '^[0-9]{4}$', example: '0001', note: `4 digits. ${MID_OR_SENT}` }),
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

const PAYMENT_METHOD = asked('paymentMethod', 'Payment method code', { maxLength: 6, note: `A code (String 6); the spec lists the codes for Brazil only. ${PAYEE_ASKS}` });
const CASH_ACCOUNT = asked('cashAccount', 'Account', { maxLength: 32 });
const CASH_ACCOUNT_TYPE = asked('cashAccountType', 'Account type', { maxLength: 32, values: ['CORRIENTE', 'AHORROS'] });

const WITHDRAWALS: readonly [string, string, readonly ParamSpec[]][] = [
  ['india', 'India', [PAYMENT_METHOD, CASH_ACCOUNT, asked('ifscCode', 'IFSC code', { maxLength: 16, pattern: '^[A-Za-z0-9]{11}$', example: 'HDFC0001234', note: `String 16 holding 11 alphanumerics. ${PAYEE_ASKS}` })]],
  ['indonesia', 'Indonesia', [PAYMENT_METHOD, CASH_ACCOUNT, optional('name', { collectOnPage: true, label: 'Account holder name', payee: 'name' }), optional('accountNo', { collectOnPage: true, label: 'Account number' })]],
  ['thailand', 'Thailand', [asked('paymentMethod', 'Payment method code', { note: `A code; the spec gives no length for Thailand. ${PAYEE_ASKS}` }), CASH_ACCOUNT]],
  ['mexico', 'Mexico', [PAYMENT_METHOD, CASH_ACCOUNT]],
  ['brazil', 'Brazil', [
    asked('paymentMethod', 'Key type', { maxLength: 6, values: ['CPF', 'CNPJ', 'PHONE', 'EMAIL', 'EVP'] }),
    CASH_ACCOUNT,
    asked('taxNumber', 'CPF or CNPJ', { pattern: '^([0-9]{11}|[0-9]{14})$', example: '12345678901', note: `CPF 11 digits or CNPJ 14. ${PAYEE_ASKS}` }),
  ]],
  ['colombia', 'Colombia', [
    PAYMENT_METHOD,
    CASH_ACCOUNT,
    CASH_ACCOUNT_TYPE,
    asked('idType', 'ID type', { values: ['CC', 'CE'] }),
    asked('identity', 'ID number', { pattern: '^[A-Za-z0-9]+$', example: '1020304050', note: `Alphanumeric. ${PAYEE_ASKS}` }),
  ]],
  ['peru', 'Peru', [
    PAYMENT_METHOD,
    CASH_ACCOUNT,
    CASH_ACCOUNT_TYPE,
    asked('cci_', 'CCI', { maxLength: 20, note: `Spelled cci_ as in the spec (String 20). ${PAYEE_ASKS}` }),
    asked('name', 'Account holder name', { payee: 'name' }),
    asked('email', 'E-mail', { type: 'email', payee: 'email' }),
    asked('phone', 'Phone', { payee: 'phone' }),
    asked('idType', 'ID type', { values: ['DNI', 'CE', 'PAS', 'RUC'] }),
    asked('identity', 'ID number'),
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
    conditional('ToAccountNumber', { collectOnPage: true, label: 'Account number', note: 'Conditional, the spec states no condition. Read as: the account the money goes to is needed, so it is required on S2S APM and asked on the Checkout page when absent.' }),
    conditional('ToAccountName', { collectOnPage: true, label: 'Account holder name', payee: 'name', note: 'As ToAccountNumber; taken from the payee\'s name when absent.' }),
    ...['ToProvince', 'ToCity', 'ToBranch', 'ToAddress'].map((name) => conditional(name, { note: UNSTATED })),
    conditional('Email', { type: 'email', payee: 'email', note: `${UNSTATED} Taken from the payee's e-mail when absent.` }),
    conditional('Phone', { payee: 'phone', note: `${UNSTATED} Taken from the payee's phone when absent.` }),
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
  channels: CHANNELS,
  currencies: MOBILE_MONEY_CURRENCIES,
  params: [
    fromRequest('order.amount', 'required', { type: 'number', note: 'order_amount. Respect the operator minimum and maximum (not given by the spec); zero-exponent currencies such as XOF and XAF apply.' }),
    fromRequest('order.description', 'optional', { note: 'order_description.' }),
    asked('mobile_money_operator', 'Mobile money operator', { note: `Operator slug, one per country and operator. ${PAYEE_ASKS}` }),
    asked('mobile_number', 'Mobile number', { ...PHONE_WITH_CODE, payee: 'phone', note: `Recipient number in the operator's country format, with country code. ${PAYEE_ASKS}` }),
    asked('customer_email', 'E-mail', { type: 'email', payee: 'email', note: `Recipient e-mail; taken from the payee's e-mail when absent. ${PAYEE_ASKS}` }),
    optional('customer_name', { payee: 'name', note: "Taken from the payee's name when absent." }),
    fromRequest('payee_first_name', 'required', { collectOnPage: true, label: 'First name', note: `Checkout: the top-level payee_first_name. ${PAYEE_ASKS}` }),
    fromRequest('payee_last_name', 'required', { collectOnPage: true, label: 'Last name', note: `Checkout: the top-level payee_last_name. ${PAYEE_ASKS}` }),
    fromRequest('payee_email', 'required', { type: 'email', collectOnPage: true, label: 'E-mail', note: `Checkout: payee.email, else customer.email. ${PAYEE_ASKS}` }),
  ],
  notes: [
    "Countries covered: Ghana (GHS), Kenya (KES), Cote d'Ivoire (XOF), Cameroon (XAF), Tanzania (TZS), Egypt (EGP).",
    'action CREDIT2VIRTUAL, client_key, brand (this key), order_id and hash are the S2S APM envelope, checked by that channel.',
    'On Checkout (operation credit) the hosted page asks the payee for what the request lacks; the outcome is a callback of type credit.',
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
