/**
 * docs/merchants/methods.md, rendered from the catalog so that the coverage list cannot drift from the code
 * (scripts/methods-doc.ts writes it; a test compares).
 */
import { METHOD_LIST } from './catalog.ts';
import type { MethodEntry, MethodRule, ParamSpec } from './types.ts';
import { PROVIDER_KINDS, type ProviderKindName } from './provider-kinds.ts';

const PREAMBLE = `# Payment method catalog

<!-- Generated from src/domain/methods by \`node --import tsx scripts/methods-doc.ts > docs/merchants/methods.md\`.
     Do not edit by hand: test/methods/methods-doc.test.ts fails when this file is out of date. -->

Every method of the interface spec's "Method parameter sets" is one entry of the catalog in
\`src/domain/methods/\` (one file per family). A session's \`parameters.<key>\` is validated against its entry
(\`validate.ts\`), the hosted page asks for what the entry marks, and adding a method is adding an entry.

## How to read the entries

- **Keys.** The spec writes provider-specific keys as \`<prefix>-xxx\` and some methods only by kind; the
  Coverage table maps each to the key used here. A row of the spec naming several keys gives several entries.
- **Experience.** The flow the spec states for the method (redirect, QR, details shown, app confirmation,
  one-time code, link); members marked "asked on the page" are collected first, whatever the experience.
  *extra_fields* is the experience of methods whose only stated interaction is such fields.
- **Requirement.** *required*: must be sent, unless it is asked on the page. *conditional*: needed when its
  condition holds; the conditions the gateway knows are "asked on the page when absent" (needed: on Checkout
  the page asks, where no page can ask it must be sent) and billing countries. A conditional member whose
  condition the spec does not state is checked only when sent; its note says so. *optional*: checked when sent.
- **Source.** *parameters*: a member of \`parameters.<key>\` (S2S APM: \`parameters[name]\`). *request*: a field of
  the request itself, named by its Checkout path (S2S APM names it \`order_amount\`, \`order_description\`, ...).
  *mid*, *gateway*, *page*: supplied by the MID configuration, by the gateway or connector, or typed by the
  payer on the hosted page; never required of the merchant, but checked if the merchant sends them in
  parameters (a value the method fixes, such as an instant-payment \`type\`, is filled in when absent).
- **Shapes.** AN n: text of at most n characters; N n: at most n digits; A n: exactly n letters; N10.N2: a
  decimal with up to 10 integer and 2 fraction digits. Numbers are accepted where text is expected
  (\`"quantity": 2\`), and numbers and booleans as strings (S2S is form-encoded).
- **Errors.** HTTP 400 \`Request data is invalid.\` with one \`<path>: <message>\` per failing field (decisions
  D3), paths in full: \`parameters.card.cart.items[0].price: This value is too long. It should have 13 characters or less.\`
  Checks run in this order and the first failure is reported: type (\`This value should be of type string|numeric|integer|bool|array|digit|alpha.\`),
  length (\`too long\`, \`too short\`, \`should have exactly n characters\`), shape, format (URL, e-mail, date,
  datetime, country, currency), pattern (\`This value is not valid.\`), allowed values (\`The value you selected is not a valid choice.\`).
  A method restricting the currency refuses others on \`order.currency\` with "not a valid choice".
- **Unknown members are passed through unchecked**, at every depth: parameters go on to the connector and
  the card sets depend on the connector service, so a provider's further members must not be refused. Two
  exceptions, both from the spec: a key of \`parameters\` that is not one of the session's \`methods\` is
  refused (\`parameters.session_expiry: This field was not expected.\`), and so is a top-level session field
  (session_expiry, success_url, customer, ...) placed inside \`parameters.<key>\` unless the method declares it.
- **Where the spec is silent** the entry's note says what was chosen (formats of UPI addresses, tax ids,
  member names the spec only describes in words).
`;

/** Table cells: a pipe must be escaped even inside code spans (GitHub tables). Applied once, per row. */
const esc = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text: string | number | boolean) => `\`${String(text)}\``;
const row = (cells: readonly string[]) => `| ${cells.map(esc).join(' | ')} |`;
const list = (values: readonly string[]) => values.map(code).join(', ');

function lengthText(p: ParamSpec): string | undefined {
  const { minLength: min, maxLength: max } = p;
  if (min !== undefined && min === max) return `exactly ${min}`;
  if (min !== undefined && max !== undefined) return `${min} to ${max} chars`;
  if (max !== undefined) return `max ${max}`;
  return min !== undefined ? `min ${min}` : undefined;
}

const FORMATS: Record<string, string> = {
  country: 'ISO 3166-1 alpha-2 country',
  'country-or-numeric': 'ISO 3166-1 alpha-2 or 3-digit country',
  currency: 'currency code',
  base64: 'base-64',
};

function ruleText(p: ParamSpec): string {
  const parts = [
    lengthText(p),
    p.shape === 'N' ? 'digits' : p.shape === 'A' ? 'letters' : undefined,
    p.decimal && `decimal N${p.decimal.integer}.N${p.decimal.fraction}`,
    p.format && FORMATS[p.format],
    p.pattern && `pattern ${code(p.pattern)}`,
    p.values && (p.values.length === 1 ? `fixed ${code(p.values[0] as string)}` : `one of ${list(p.values)}`),
    p.default !== undefined && `default ${code(p.default)}`,
    p.requiredIn && `required for billing countries ${p.requiredIn.join(', ')}`,
    p.exemptIn && `not required in ${p.exemptIn.join(', ')}`,
    p.collectOnPage && `asked on the page when absent${p.label ? ` ("${p.label}")` : ''}`,
    p.payee && `payouts: taken from the payee's ${PAYEE_NAMES[p.payee]} when absent`,
    p.orMid && `or the MID's \`settings.${p.name}\``,
    p.example !== undefined && `e.g. ${code(p.example)}`,
  ];
  return parts.filter((x): x is string => typeof x === 'string' && x.length > 0).join('; ');
}

/** The request fields a payee value comes from (issue 17). */
const PAYEE_NAMES: Readonly<Record<NonNullable<ParamSpec['payee']>, string>> = {
  firstName: 'first name (payee_first_name)',
  lastName: 'last name (payee_last_name)',
  name: 'name',
  email: 'e-mail (payee.email, else customer.email)',
  phone: 'phone (payee.phone, payee_billing_address.phone)',
};

/** One row per member, nested members with their full path (`cart.items[n].price`). */
function memberRows(params: readonly ParamSpec[], base = ''): string[] {
  return params.flatMap((p) => {
    const path = base ? `${base}.${p.name}` : p.name;
    const type = p.type === 'array' && p.items ? `array of ${p.items.type}` : p.type;
    const notes = [p.group && `${p.group}.`, p.note].filter(Boolean).join(' ');
    const nested = p.members ? memberRows(p.members, path) : p.items?.members ? memberRows(p.items.members, `${path}[n]`) : [];
    return [row([code(path), p.source ?? 'parameters', type, p.requirement, ruleText(p), notes]), ...nested];
  });
}

function methodRuleText(rule: MethodRule): string {
  const when = 'when' in rule ? `when ${code(rule.when.member)} is ${list(rule.when.values)}` : '';
  switch (rule.kind) {
    case 'allOrNone':
      return `All or none of ${list(rule.members)}. ${rule.note}`;
    case 'together':
      return `${list(rule.members)} go together; one sent alone is dropped. ${rule.note}`;
    case 'onlyWhen':
      return `${code(rule.member)} only ${when}; otherwise refused. ${rule.note}`;
    case 'patternWhen':
      return `${code(rule.member)} matches ${code(rule.pattern)} ${when}. ${rule.note}`;
    case 'equalsWhen':
      return `${code(rule.member)} equals ${code(rule.value)} ${when}. ${rule.note}`;
  }
}

function coverageRow(m: MethodEntry): string {
  const currencies = (m.currencies ?? []).join(', ') || (m.currencyKind ? `${m.currencyKind} only` : 'any');
  return row([m.specName, code(m.key), m.experience, m.operations.join(', '), (m.channels ?? []).join(', '), currencies]);
}

function methodSection(m: MethodEntry): string[] {
  const options = m.experienceOptions ? ` (${Object.entries(m.experienceOptions).map(([k, v]) => `${k}: ${v}`).join(', ')})` : '';
  const lines = [`### ${code(m.key)}: ${m.label}`, '', `${m.specName}. Kind: ${m.kind}. Experience: ${m.experience}${options}.`, ''];
  if (m.params.length === 0) lines.push('No parameters of its own.', '');
  else lines.push('| Member | Source | Type | Requirement | Rules | Notes |', '|---|---|---|---|---|---|', ...memberRows(m.params), '');
  const rules = (m.rules ?? []).map((r) => `- ${methodRuleText(r)}`);
  const notes = (m.notes ?? []).map((n) => `- ${n}`);
  if (rules.length > 0) lines.push('Rules:', '', ...rules, '');
  if (notes.length > 0) lines.push('Notes:', '', ...notes, '');
  return lines;
}

/** What each provider kind's calls carry and answer (the sandbox provider checks exactly this). */
const KIND_WIRE: Readonly<Record<ProviderKindName, string>> = {
  'header-key': '`POST /payments` (public id, amount, currency, method, payer, `params`) -> `{id, status, redirect_url}`; `GET /payments/{id}`; `POST /payments/{id}/cancel`. Serves the methods listed in `settings.methods` (required).',
  'reference-auth': '`POST /reference-auth/token` `{api_key, timestamp, signature}` (signature: the MID\'s private key, else the merchant\'s `connector_options.token_call` key, over `api_key.timestamp`) -> `{access_token}`; then with header `authorization`: Create reference `POST /reference-auth/references` `{amount (number), public_id (the order number, up to 40), single (true single, false recurring: the session\'s recurring_init)}` -> `{gateway_id}`; Create payment `POST /reference-auth/payments` `{gateway_id}` -> `{payment_id, redirect_url}`.',
  'voucher-partner': '`POST /voucher/initiate` with PartnerId (settings `partner_ids` per currency, else `partner_id`, else the merchant\'s `connector_options.voucher_partner`, else the API key), PayerId, PayerFirstName, PayerLastName, PayerBirthDate, PublicId (the payment id), Amount, Currency (ISO 4217 int), PayType 0, PayMethod 2, CallbackUrl (the gateway\'s notification endpoint), ReturnUrl, DeclineUrl, CancelUrl (the payer page), Domain, Language (settings, else the merchant\'s connector options) and Signature (the MID\'s private key over every other field sorted by name, `name=value` joined by `&`, Base64) -> `{TransactionId, RedirectUrl}`. The partner notifies CallbackUrl; the gateway then calls `POST /voucher/status` (signed) -> `{Status: Pending|Approved|Declined}`. A PayerId known with other data is a data mismatch: the partner\'s page shows a pop-up and sends the payer to DeclineUrl, and the status call answers `Transaction does not exist`, which declines the payment with that reason.',
  'payer-challenge': '`POST /challenges` with the eight fields phone, email, first_name, last_name (customer.name split), country, address, city, zip -> `{challengeId}`; then `POST /payments` with `challengeId` -> a one-time code sent to the phone; `POST /payments/{id}/otp` `{code}`.',
  'pix-payin': '`POST /pix/payin` `{amount, fine, type_fine, branch_identifier, source_account_number, type_document, debtor_document, debtor_name}` (each from the request or the MID settings) -> `{qr_code_id, status, base_64_image, pix_copy_and_paste}`, handed to the S2S APM merchant in `redirect_params` beside `qr_code`.',
  'mobile-money': '`POST /mobile-money/charge` `{public_id (the order number, at least 8), amount, currency, description, payer {name, email}, mobile_number, callback_url, verify_url, fee_bearer (settings, else the merchant\'s `connector_options.mobile_money`)}` -> `{auth_method: STK_PROMPT, message}`; the payer page shows the message while the payer confirms on the phone.',
  'crypto-address': '`POST /crypto/address` `{crypto_type, network_type, bech32, accountId}` -> `{address, network}`: for BTC with bech32 a bech32 segwit address, for BCH with bech32 a cash address, for USDT the eth (default) or tron network.',
  'crypto-fiat': 'As crypto-address, with `crypto_amount`: the order amount converted by the MID\'s `rates` (coin units per unit of each fiat currency) into `crypto_currency`, exactly, rounded down; no rate for the currency declines the payment.',
  'card-by-bank': '`POST /payments` with `method: card-by-bank` -> `redirect_url` to the provider\'s account list; the payer picks an account there.',
  'identity-transfer': '`POST /payments` with `first_name` and `last_name` (customer.name split: the first word, the rest) and `payment_methods: OBT`.',
};

function providerKindsSection(): string[] {
  return [
    '## Provider kinds (MID-configured providers)',
    '',
    'A MID with connector `apm-provider` (admin API, `POST /admin/v1/merchants/{id}/mids`) carries the methods of one provider',
    'kind: `settings.kind`, `settings.base_url` (the provider\'s API), `settings.methods` (default: the kind\'s own), and sealed',
    'credentials `api_key` with `api_secret` (header-key kinds: `X-API-Key` and `X-API-Secret` on every call) or `private_key`',
    '(PEM; signature kinds, and token kinds unless the merchant\'s `connector_options.token_call` key stands in). An APM payment',
    'goes to the merchant\'s highest-priority enabled MID whose kind serves its',
    'method and whose currencies and limits allow it, and stays with that MID; a merchant without one uses the sandbox engine.',
    'Every create call carries the gateway\'s notification URL `POST /apm/provider/notify/{payment}`: a notification only makes',
    'the gateway ask the provider for the status. The sandbox provider at `{base_url}/sandbox/apm-provider` issues accounts',
    '(`POST /sandbox/apm-provider/accounts`) and checks every rule below on the wire.',
    '',
    '| Kind | Authentication | Methods | Payer | Calls |',
    '|---|---|---|---|---|',
    ...Object.values(PROVIDER_KINDS).map((k) => row([code(k.name), k.auth, list(k.methods) || '(settings.methods)', k.experience, KIND_WIRE[k.name]])),
    '',
  ];
}

export function renderMethodsDoc(methods: readonly MethodEntry[] = METHOD_LIST): string {
  return [
    PREAMBLE,
    `## Coverage (${methods.length} methods)`,
    '',
    '| Spec | Key | Experience | Operations | Channels | Currencies |',
    '|---|---|---|---|---|---|',
    ...methods.map(coverageRow),
    '',
    ...providerKindsSection(),
    '## Methods',
    '',
    ...methods.flatMap(methodSection),
  ].join('\n');
}
