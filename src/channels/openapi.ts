/**
 * The OpenAPI 3.1 description served at /docs: the route schemas (@fastify/swagger), completed here with what
 * a merchant developer needs and Fastify must not see. Each merchant route carries its doc in `config.doc`
 * (route-docs.ts; the S2S actions' docs are the rows of their action tables); this module renders them:
 *
 * - every merchant operation gets its answers (success and every error status, with D3 bodies), its examples
 *   (signed for the demo merchant) and its hash recipe in the description;
 * - S2S CARD and S2S APM get their form bodies, one schema per action;
 * - the payer-facing pages (hidden routes, HTML) are listed with their parameters;
 * - the callbacks of each channel are the `webhooks` section.
 *
 * Patching fills only what a route does not document itself, so routes that bring their own schemas (the
 * admin API) keep them.
 */
import { VERSION } from '../version.ts';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { Type, type TSchema } from '@sinclair/typebox';
import * as sig from '../domain/signatures.ts';
import { HASH_RECIPES, formulaText, type HashRecipeName } from '../domain/hash-recipes.ts';
import { ERRORS, type ErrorName } from '../domain/errors.ts';
import {
  DATE, DEMO, ORDER, PAYER, PAYMENT_ID, demoCallbackHash, demoHash, demoSigned, resignDocument, type DocsMerchant, type FormDoc, type Json, type OperationDoc, type QueryDoc, type RouteDoc,
} from './route-docs.ts';

// --- recipes ---------------------------------------------------------------------------------------------

const recipeText = (names: readonly HashRecipeName[]) => names.map((n) => {
  const r = HASH_RECIPES[n];
  return `\`${formulaText(r, 'md5')}\` (${r.request}; covers ${r.fields.length ? r.fields.join(', ') + ' and' : ''} the password)`;
}).join(', or ');

const hashLine = (names: readonly HashRecipeName[]) =>
  `**hash**: ${recipeText(names)}. PHP notation: \`.\` concatenates, \`strrev\` reverses bytes, \`UPPER\` is ASCII-only; hex digests; sha256 replaces md5 in SHA-256 mode. The examples are signed for merchant_key \`${DEMO.key}\` and password \`${DEMO.password}\`; worked examples in docs/merchants/hashes.md.`;

// --- D3 error bodies -------------------------------------------------------------------------------------

const ErrorItem = Type.Object({ error_code: Type.String(), error_message: Type.String({ description: '<field.path>: <message>' }) });
const ErrorBody = Type.Object({
  http_code: Type.Integer(),
  error_code: Type.String(),
  error_message: Type.String(),
  errors: Type.Optional(Type.Array(ErrorItem)),
  hint: Type.Optional(Type.String({ description: 'Sandbox merchants only, on a bad hash: the formula expected and the fields it covers (never the value).' })),
}, { title: 'Error (D3)' });
const S2sErrorBody = Type.Object({ ...ErrorBody.properties, result: Type.Literal('ERROR') }, { title: 'S2S error (D3)' });

type Dialect = 'json' | 's2s';
const FIELD_EXAMPLE: Readonly<Partial<Record<ErrorName, string>>> = {
  invalidRequest: 'order.amount: This value should be greater than 0.',
  payloadTooLarge: 'request: The request body is too large.',
  unsupportedMediaType: 'request: This content type is not supported.',
};

function errorExample(name: ErrorName, dialect: Dialect): Json {
  const e = ERRORS[name];
  const body: Json = { http_code: e.http, error_code: e.code, error_message: e.message };
  const field = FIELD_EXAMPLE[name];
  if (field) body.errors = [{ error_code: e.code, error_message: field }];
  if (dialect === 's2s') body.result = 'ERROR';
  return body;
}

/** Error answers grouped by HTTP status, one named example per error. */
function errorResponses(names: readonly ErrorName[], dialect: Dialect): Json {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of new Set(names)) byStatus.set(ERRORS[name].http, [...(byStatus.get(ERRORS[name].http) ?? []), name]);
  const ref = { $ref: `#/components/schemas/${dialect === 's2s' ? 'S2sError' : 'Error'}` };
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), {
    description: list.map((n) => ERRORS[n].message).join(' / '),
    content: { 'application/json': { schema: ref, examples: Object.fromEntries(list.map((n) => [n, { value: errorExample(n, dialect) }])) } },
  }]));
}

const COMMON_ERRORS: ErrorName[] = ['invalidRequest', 'payloadTooLarge', 'unsupportedMediaType', 'internal'];
/** What every signed request can also answer. */
const AUTH_ERRORS: ErrorName[] = [
  'hashInvalid', 'merchantNotFound', 'sourceAddressRefused', 'requestSignatureRequired', 'requestSignatureInvalid', 'requestSignatureExpired', 'requestSignatureReplayed',
];

const asJson = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;

// --- JSON operations (Checkout, the test clock, the bank callback) -----------------------------------------

function jsonOperationPatch(op: Json, doc: OperationDoc): void {
  const description = [doc.description, doc.recipe && hashLine(doc.recipe)].filter(Boolean).join(' ');
  op.description = [op.description, description].filter(Boolean).join('\n\n');
  if (doc.parameters) op.parameters = [...((op.parameters as Json[] | undefined) ?? []), ...doc.parameters];
  if (doc.requestBody) op.requestBody = asJson(doc.requestBody);
  const body = op.requestBody as { content?: Record<string, Json> } | undefined;
  const media = body?.content?.['application/json'];
  if (media && doc.example) media.example = JSON.parse(JSON.stringify(doc.example));
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const success = responses['200'];
  const successMedia = (success?.content as Record<string, Json> | undefined)?.['application/json'];
  if (!successMedia?.schema) responses['200'] = { description: doc.answerDescription ?? 'Success', content: { 'application/json': { schema: asJson(doc.answer) } } };
  const target = (responses['200']!.content as Record<string, Json>)['application/json']!;
  if (doc.answerExample !== undefined) target.example = doc.answerExample;
  if (!responses['200']!.description || responses['200']!.description === 'Default Response') responses['200']!.description = 'Success';
  const errors = [...COMMON_ERRORS, ...(doc.recipe ? AUTH_ERRORS : []), ...doc.errors];
  op.responses = { ...responses, ...errorResponses(errors, 'json') };
}

// --- form APIs (S2S CARD, S2S APM), one schema per action ----------------------------------------------------

const componentName = (prefix: string, action: string) => prefix + action.toLowerCase().split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

/** One component schema per action (`action` fixed to the action's name, the hash recipe in its description). */
function actionSchemas(form: FormDoc): Json {
  return Object.fromEntries(Object.entries(form.actions).map(([name, a]) => {
    const properties = (a.schema as unknown as { properties: Record<string, TSchema> }).properties;
    return [componentName(form.prefix, name), Type.Object({ ...properties, action: Type.Literal(name) }, { title: name, description: hashLine(a.doc.recipe) })];
  }));
}

function formBody(form: FormDoc): Json {
  const oneOf = Object.keys(form.actions).map((name) => ({ $ref: `#/components/schemas/${componentName(form.prefix, name)}` }));
  const examples = Object.fromEntries(Object.entries(form.actions).map(([name, a]) => [name, { summary: name, value: { action: name, client_key: DEMO.key, ...a.doc.example } }]));
  const media = { schema: { oneOf }, examples };
  return { required: true, content: { 'application/x-www-form-urlencoded': media, 'multipart/form-data': { schema: { oneOf } } } };
}

function formAnswers(actions: FormDoc['actions']): Json {
  const refs = [...new Set(Object.values(actions).map((a) => a.doc.answer))].map((n) => ({ $ref: `#/components/schemas/${n}` }));
  const examples = Object.fromEntries(Object.entries(actions).map(([name, a]) => [name, { summary: name, value: a.doc.answerExample }]));
  return { description: 'The action\'s answer', content: { 'application/json': { schema: { oneOf: refs }, examples } } };
}

const signedErrors = (errors: ErrorName[]) => errorResponses([...COMMON_ERRORS, ...AUTH_ERRORS, ...errors], 's2s');

function formOperation(form: FormDoc): Json {
  return { description: form.description, requestBody: formBody(form), responses: { 200: formAnswers(form.actions), ...signedErrors(form.errors) } };
}

/** An action by GET: `action`, `client_key` and the fields of its example in the query string. */
function queryOperation(doc: QueryDoc): Json {
  const action = doc.byGet.actions[doc.action]!;
  const example = action.doc.example;
  const parameters = ['action', 'client_key', ...Object.keys(example)].map((name) => ({
    name, in: 'query', required: true, schema: name === 'action' ? { type: 'string', enum: [doc.action] } : { type: 'string' },
    ...(name === 'hash' ? { description: hashLine(action.doc.recipe), example: example.hash } : name === 'client_key' ? { example: DEMO.key } : name === 'action' ? {} : { example: example[name] }),
  }));
  return {
    description: `${doc.description} ${hashLine(action.doc.recipe)}`,
    parameters,
    responses: { 200: formAnswers({ [doc.action]: action }), ...signedErrors(doc.errors) },
  };
}

/** Every form API's request schemas, then every one's answers (the document's order), the forms in their routes' order. */
function formComponents(forms: Iterable<FormDoc>): Json {
  const list = [...forms];
  return {
    ...Object.assign({}, ...list.map(actionSchemas)) as Json,
    ...Object.assign({}, ...list.map((f) => f.answers)) as Json,
  };
}

// --- pages (hidden routes, HTML for the payer) --------------------------------------------------------------

interface PageDoc {
  summary: string;
  /** Default 'Hosted pages'. */
  tag?: string;
  /** The success answer's media type when it is neither HTML nor JSON. */
  contentType?: string;
  param?: 'id' | 'ref';
  /** Form fields the page posts. */
  form?: Json;
  query?: string[];
  json?: TSchema;
}

const HTML_FORM = (properties: Record<string, string>) => Type.Object(Object.fromEntries(Object.entries(properties).map(([k, d]) => [k, Type.Optional(Type.String({ description: d }))])));

const PAGES: Readonly<Record<string, PageDoc>> = {
  'get /checkout/{id}': { summary: 'The hosted payment page (the session\'s redirect_url)', param: 'id' },
  'post /checkout/{id}/pay': { summary: 'The hosted payment page\'s form: pays the session and sends the payer on (ACS, provider page or the merchant\'s URL)', param: 'id', form: HTML_FORM({ method: 'card or a method key', card_number: 'the card number', card_expiry: 'MM/YY', card_cvv: 'CVV', card_holder: 'name on the card', email: 'payer e-mail when asked' }) },
  'post /checkout/{id}/wallet': { summary: 'The hosted page\'s wallet form: the token the payment sheet returned (Apple Pay, Google Pay, or the sandbox simulator), paid by the wallet flow rules; sends the payer on', param: 'id', form: HTML_FORM({ wallet: 'applepay or googlepay', payment_token: 'the wallet\'s token as the sheet returned it' }) },
  'post /checkout/{id}/applepay/validate': { summary: 'Apple Pay merchant validation for the hosted page\'s ApplePaySession (live merchants): the gateway asks Apple with the merchant\'s identity certificate', param: 'id', form: HTML_FORM({ validation_url: 'the validationURL of the onvalidatemerchant event (an Apple host)' }), json: Type.Object({}, { additionalProperties: true, description: 'Apple\'s opaque merchant session' }) },
  'post /sandbox/wallets/{id}/token': { summary: 'Sandbox wallet simulator: a genuinely encrypted and signed Apple Pay or Google Pay token for the session\'s merchant, from the sandbox\'s test roots', param: 'id', form: HTML_FORM({ wallet: 'applepay or googlepay', card: 'success or decline (the sandbox test card picked on the sheet)' }), json: Type.Object({ payment_token: Type.String() }) },
  'get /checkout/{id}/cancel': { summary: 'Cancels nothing (a link preview, a prefetch): 303 back to the hosted payment page', param: 'id' },
  'post /checkout/{id}/cancel': { summary: 'The payer cancels (the page\'s button): back to the merchant\'s cancel_url', param: 'id', form: HTML_FORM({}) },
  'get /checkout/{id}/expired': { summary: 'The page of an expired session', param: 'id' },
  'get /sandbox/acs/{id}': { summary: 'Sandbox 3-D Secure challenge page (ACS)', param: 'id' },
  'post /sandbox/acs/{id}': { summary: 'Sandbox ACS, reached by the POST of the 3-D Secure redirect (PaReq, MD, TermUrl)', param: 'id', form: HTML_FORM({ PaReq: '3-D Secure request', MD: 'merchant data (the trans_id)', TermUrl: 'where the ACS returns' }) },
  'post /sandbox/acs/{id}/complete': { summary: 'Sandbox ACS: the payer completes or fails the challenge', param: 'id', form: HTML_FORM({ outcome: 'success or fail' }) },
  'get /sandbox/provider/{id}': { summary: 'Sandbox provider page of a card redirect (expiry month 12)', param: 'id' },
  'post /sandbox/provider/{id}': { summary: 'Sandbox provider page, by POST', param: 'id' },
  'post /sandbox/provider/{id}/complete': { summary: 'Sandbox provider page: the payer pays or cancels', param: 'id', form: HTML_FORM({ outcome: 'success or fail' }) },
  'get /pay/{id}': { summary: 'The payer page of an alternative-method payment (fields, QR code, details, app wait, code form)', param: 'id' },
  'get /pay/{id}/status': { summary: 'Polled by the payer page: whether the payment still waits', param: 'id', json: Type.Object({ state: Type.Union([Type.Literal('waiting'), Type.Literal('done')]) }) },
  'post /pay/{id}/fields': { summary: 'The payer page\'s form of the fields the request lacked', param: 'id', form: HTML_FORM({ '(method fields)': 'the method\'s parameters, as named in docs/merchants/methods.md' }) },
  'post /pay/{id}/code': { summary: 'The payer page\'s one-time code form', param: 'id', form: HTML_FORM({ code: 'the code sent by e-mail or SMS' }) },
  'post /pay/{id}/cancel': { summary: 'The payer cancels an alternative-method payment', param: 'id' },
  'get /pay/{id}/leave': { summary: 'Leaves the payer page for the merchant\'s return URL', param: 'id' },
  'get /sandbox/apm/{ref}': { summary: 'Sandbox alternative-method provider page', param: 'ref' },
  'post /sandbox/apm/{ref}': { summary: 'Sandbox provider page: the payer pays or cancels', param: 'ref', form: HTML_FORM({ decision: 'pay or cancel' }) },
  'get /sandbox/apm/{ref}/app': { summary: 'Sandbox payer app or bank (confirmations, QR payments)', param: 'ref' },
  'post /sandbox/apm/{ref}/app': { summary: 'Sandbox payer app: confirms or refuses', param: 'ref', form: HTML_FORM({ decision: 'pay or cancel' }) },
  'get /sandbox/apm-provider/pages/voucher/{ref}': { summary: "Sandbox voucher partner's page: on to the payment, or the data-mismatch pop-up and DeclineUrl", param: 'ref', query: ['p'] },
  'get /sandbox/apm-provider/pages/accounts/{ref}': { summary: 'Sandbox card-by-bank provider: the account list the payer picks from', param: 'ref' },
  'post /sandbox/apm-provider/pages/accounts/{ref}': { summary: 'Sandbox card-by-bank provider: the payer pays from the picked account or cancels', param: 'ref', form: HTML_FORM({ account: 'the account picked', decision: 'pay or cancel' }) },
  'get /sandbox/outbox': { summary: 'Sandbox outbox: the e-mails, SMS and app notifications sent to an address', query: ['to'] },
  'get /sandbox/outbox/messages': { summary: 'Sandbox outbox as JSON', query: ['to'], json: Type.Object({ messages: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
  'get /connectors/return/{id}': { summary: 'The payer comes back from an acquirer\'s page (3-D Secure or redirect); the gateway asks the acquirer and sends the payer on', param: 'id' },
  'get /connectors/return/{id}/3ds2': { summary: 'Our page for a native 3-D Secure 2 step: the ACS\'s device fingerprint (3DS Method) or challenge in a frame, the result posted back to the return URL', param: 'id' },
  'post /connectors/return/{id}': { summary: 'The same return by POST (the acquirer\'s form fields, e.g. PaRes, cres)', param: 'id', form: HTML_FORM({ '(acquirer fields)': 'whatever the acquirer posts back' }) },
  'post /pay/{id}/resend': { summary: 'The payer asks for the link or code to be sent again', param: 'id' },
  'get /sandbox/shop': { summary: 'Sandbox demo shop: a merchant page that opens a session for the demo merchant' },
  'get /sandbox/shop/return': { summary: 'Sandbox demo shop: the page the payer returns to' },
  'get /sandbox/inbox': { summary: 'Sandbox merchant inbox (development only, never in production): the callbacks received, each with its hash (merchant password) and webhook-signature (signing secret) checked; the demo session\'s success and cancel URL (`?result=success|cancel` and the return parameters)', tag: 'Sandbox' },
  'post /sandbox/inbox': { summary: 'Sandbox merchant inbox: receives a callback as a merchant\'s server does (the demo merchant\'s notification URL by default; development only) and answers OK', tag: 'Sandbox', contentType: 'text/plain', form: HTML_FORM({ '(callback fields)': 'a Checkout or S2S CARD callback as the gateway sends it (form-encoded or JSON), with its webhook-id, webhook-timestamp and webhook-signature headers' }) },
  'get /sandbox/inbox/callbacks': { summary: 'Sandbox merchant inbox as JSON: the last 200 callbacks, newest first, each with `hash` and `signature` checks (`verified`, `mismatch` or `unchecked` with a reason)', tag: 'Sandbox', json: Type.Object({ callbacks: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
  'get /sdk/hosted-fields.js': { summary: 'The hosted payment fields JavaScript library (HostedFields)', contentType: 'application/javascript' },
  'get /health': { summary: 'Liveness: answers while the process serves requests', tag: 'Operations', json: Type.Object({ status: Type.Literal('ok') }) },
  'get /metrics': { summary: 'Prometheus metrics: requests by route pattern and status, durations, process figures', tag: 'Operations', contentType: 'text/plain' },
};

const openapiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

function pageOperation(doc: PageDoc): Json {
  const parameters: Json[] = [];
  if (doc.param) parameters.push({ name: doc.param, in: 'path', required: true, schema: { type: 'string' } });
  for (const q of doc.query ?? []) parameters.push({ name: q, in: 'query', required: true, schema: { type: 'string' }, example: 'success@gmail.com' });
  const okContent = doc.json
    ? { 'application/json': { schema: doc.json } }
    : doc.contentType ? { [doc.contentType]: { schema: { type: 'string' } } } : { 'text/html': { schema: { type: 'string', description: 'an HTML page' } } };
  const responses: Json = {
    200: { description: 'The page', content: okContent },
    404: { description: 'Unknown payment or page', content: doc.json ? { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } : { 'text/html': { schema: { type: 'string' } } } },
  };
  if (doc.form) responses[422] = { description: 'The form with its errors', content: { 'text/html': { schema: { type: 'string' } } } };
  return {
    tags: [doc.tag ?? 'Hosted pages'],
    summary: doc.summary,
    ...(parameters.length ? { parameters } : {}),
    ...(doc.form ? { requestBody: { required: false, content: { 'application/x-www-form-urlencoded': { schema: doc.form } } } } : {}),
    responses,
  };
}

// --- callbacks (webhooks) -----------------------------------------------------------------------------------

const CALLBACK_HEADERS = [
  { name: 'X-Callback-Id', in: 'header', required: true, description: 'The event id, the same for every delivery of one event: drop repeats by it.', schema: { type: 'string' } },
  { name: 'webhook-id', in: 'header', required: false, description: 'Standard Webhooks: the event id (merchants with a webhook secret).', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: false, description: 'Standard Webhooks: Unix seconds of this attempt; refuse more than 5 minutes off.', schema: { type: 'string' } },
  { name: 'webhook-signature', in: 'header', required: false, description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256(whsec key, webhook-id . "." . webhook-timestamp . "." . raw body)>`; several may be space-separated.', schema: { type: 'string' } },
];

const fields = (names: string[], extra: Record<string, string> = {}) =>
  Type.Object({ ...Object.fromEntries(names.map((n) => [n, Type.String()])), ...Object.fromEntries(Object.entries(extra).map(([k, d]) => [k, Type.Optional(Type.String({ description: d }))])) }, { additionalProperties: true });

function webhook(summary: string, description: string, schema: TSchema, example: Json, answer: string): Json {
  return {
    post: {
      summary,
      description: `${description} Delivered at least once: retried after 1 min, 5 min, 5 min, then 10 min x5, 1 h x5, 6 h x3 (decisions D7); then failed (an operator can resend it).`,
      parameters: CALLBACK_HEADERS,
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema, example } } },
      responses: { 200: { description: answer } },
    },
  };
}

function webhooks(): Json {
  const cbOrder = { id: PAYMENT_ID, order_number: ORDER.number, order_amount: ORDER.amount, order_currency: ORDER.currency, order_description: ORDER.description };
  const checkoutCb = {
    ...cbOrder, payment_id: PAYMENT_ID, trans_id: PAYMENT_ID, order_id: ORDER.number, order_status: 'settled', type: 'sale', status: 'success', date: DATE,
    customer_ip: '203.0.113.9', card: '411111****1111', card_expiration_date: '01/2038', hash: demoCallbackHash(),
  };
  const cardCb = { action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, hash: demoHash.s2s((pw) => sig.s2sCard.f2(PAYER.payer_email, pw, PAYMENT_ID, '4111111111')), trans_date: DATE, descriptor: 'Demo Shop', amount: '10.00', currency: 'USD', card: '411111****1111' };
  const apmCbFields = { action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'apm-2001', trans_id: PAYMENT_ID, trans_date: DATE, amount: '12.50', currency: 'EUR' };
  return {
    checkoutCallback: webhook('Checkout callback', `Sent to the merchant's notification URL when a Checkout payment changes. **hash**: \`sha1(md5(UPPER(id . order_number . order_amount . order_currency . order_description . PASSWORD)))\`, recomputed from the callback's own fields.`,
      fields(['id', 'payment_id', 'trans_id', 'order_id', 'order_number', 'order_amount', 'order_currency', 'order_description', 'order_status', 'type', 'status', 'date', 'customer_ip', 'hash'], { reason: 'when status=fail', amount: 'of a partial capture or refund', card: 'masked', card_expiration_date: 'MM/YYYY', card_token: 'with req_token', recurring_init_trans_id: '', recurring_token: '', schedule_id: '', customer_name: '', customer_email: '', 'custom_data[key]': 'the request\'s custom_data',
        consent_id: 'recurring_consent_required, consent given', consent_state: 'active (consent given)', 'extended_data[consent_state]': 'ignored: consent declined, the payment was one-time',
        RRN: 'Protocol Mapping rrn; empty when missing', ARN: 'Protocol Mapping rrn; empty when missing', brand: 'Protocol Mapping brand: payment_document_card, _virtual, _crypto',
        'extended_data[approval_code]': 'Protocol Mapping extended_data (also gateway_id, rrn)', 'browser_user_agent': 'Protocol Mapping browser (and the nine other browser_* fields)',
        payer_address2: 'Protocol Mapping: one of the fifteen payer_* attributes' }),
      checkoutCb, 'Delivered: any 2xx.'),
    s2sCardCallback: webhook('S2S CARD callback', '**hash**: Formula 2 `md5(UPPER(strrev(payer_email) . PASSWORD . trans_id . strrev(first6 . last4)))` over the payment\'s e-mail and card (Formula 6 for CREDIT2CARD).',
      fields(['action', 'result', 'status', 'order_id', 'trans_id', 'hash'], { trans_date: '', descriptor: '', amount: '', currency: '', card: 'masked', card_token: '', recurring_token: '', schedule_id: '', decline_reason: '', redirect_url: '3-D Secure step', creditvoid_date: '',
        rrn: 'Protocol Mapping rrn; left out when missing', arn: 'Protocol Mapping rrn; left out when missing', browser_user_agent: 'Protocol Mapping browser (and the nine other browser_* fields)' }),
      cardCb, 'Delivered: 2xx with the body `OK`.'),
    s2sApmCallback: webhook('S2S APM callback', '**hash**: every field but hash, each value byte-reversed, each level sorted by key (PHP ksort), joined, then `md5(UPPER(joined . PASSWORD))`; CREDIT2VIRTUAL: `md5(UPPER(strrev(trans_id . order_id . status)) . PASSWORD)`.',
      fields(['action', 'result', 'status', 'order_id', 'trans_id', 'hash'], { trans_date: '', descriptor: '', amount: '', currency: '', decline_reason: '' }),
      { ...apmCbFields, hash: demoSigned((m) => sig.apmCallbackHash(apmCbFields, m.password)) }, 'Delivered: 2xx with the body `OK`.'),
  };
}

// --- assembling -----------------------------------------------------------------------------------------------

/** Where a route's doc rides from `transform` (which sees the route) to `transformObject` (which sees the document). */
const DOC_KEY = 'x-portcullis-doc';

/** A form API's operation, described whole by its route's doc; the form is noted for its component schemas. */
function wholeOperation(doc: { form: FormDoc } | QueryDoc, forms: Set<FormDoc>): Json {
  if ('form' in doc) {
    forms.add(doc.form);
    return formOperation(doc.form);
  }
  forms.add(doc.byGet);
  return queryOperation(doc);
}

// Answers of admin routes that do not declare their own (the admin API brings its schemas as it grows).
const CallbackEvent = Type.Object({
  id: Type.String(), merchant_id: Type.String(), payment_id: Type.Union([Type.String(), Type.Null()]), url: Type.String(), protocol: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]), attempts: Type.Integer(), next_attempt_at: Type.String(),
  last_error: Type.Union([Type.String(), Type.Null()]), created_at: Type.String(), delivered_at: Type.Union([Type.String(), Type.Null()]), body: Type.String({ description: 'the signed form body as sent' }),
  attempt_log: Type.Array(Type.Object({ attempted_at: Type.String(), http_status: Type.Union([Type.Integer(), Type.Null()]), outcome: Type.String(), error: Type.Union([Type.String(), Type.Null()]), duration_ms: Type.Integer() })),
}, { additionalProperties: true });

const ADMIN_ANSWERS: Readonly<Record<string, TSchema>> = {
  'get /admin/v1/callbacks': Type.Object({ callbacks: Type.Array(CallbackEvent) }),
  'post /admin/v1/callbacks/{id}/resend': Type.Object({ id: Type.String(), status: Type.Literal('pending') }),
  'post /admin/v1/callback-urls/unblock': Type.Object({ url: Type.String(), unblocked: Type.Boolean() }),
  'post /connectors/{connector}/{midId}/notify': Type.Unknown({ description: 'The acknowledgement the connector\'s acquirer expects (its own content type and body)' }),
  'post /admin/v1/merchants/{id}/signing-secret': Type.Object({
    merchant_id: Type.String(),
    signing_secret: Type.String({ description: 'the new whsec_ secret, shown this once' }),
    previous_valid_until: Type.String({ description: 'ISO 8601: the previous secret signs beside the new one until then' }),
  }),
};

/** A success answer schema for a route that declares none, from ADMIN_ANSWERS. */
function fillMissingAnswer(op: Json, key: string): void {
  const schema = ADMIN_ANSWERS[key];
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const media = (responses['200']?.content as Record<string, Json> | undefined)?.['application/json'];
  if (!schema || media?.schema) return;
  op.responses = { ...responses, 200: { description: 'Success', content: { 'application/json': { schema: asJson(schema) } } } };
}

/** Error answers for operations that document none (the admin API's own routes). */
/**
 * Where the document lists the sandbox's paths: src/sandbox/ registers them together, and the document keeps each
 * beside the gateway path whose other side it plays (prefix -> the path it follows), as it always listed them.
 */
const SANDBOX_PLACES: readonly (readonly [prefix: string, after: string])[] = [
  ['/sandbox/test-clock', '/api/v1/payment/retry'],
  ['/sandbox/shop', '/api/v1/payment/retry'],
  ['/sandbox/inbox', '/api/v1/payment/retry'],
  ['/sandbox/wallets/', '/checkout/{id}/wallet'],
  ['/sandbox/acs/', '/checkout/{id}/expired'],
  ['/sandbox/provider/', '/checkout/{id}/expired'],
  ['/sandbox/apm-provider/', '/apm/provider/notify/{id}'],
  ['/sandbox/apm/', '/pay/{id}/leave'],
  ['/sandbox/outbox', '/pay/{id}/leave'],
];

/** The paths with the sandbox's moved beside their places (in registration order there); others as registered. */
function placeSandboxPaths<T>(paths: Record<string, T>): Record<string, T> {
  const beside = new Map<string, string[]>();
  const order: string[] = [];
  for (const path of Object.keys(paths)) {
    const after = SANDBOX_PLACES.find(([prefix]) => path.startsWith(prefix))?.[1];
    if (after !== undefined && Object.hasOwn(paths, after)) beside.set(after, [...(beside.get(after) ?? []), path]);
    else order.push(path);
  }
  return Object.fromEntries(order.flatMap((path) => [path, ...(beside.get(path) ?? [])]).map((path) => [path, paths[path]!]));
}

function fillMissingErrors(op: Json, tag: string | undefined): void {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  if (Object.keys(responses).some((s) => s.startsWith('4'))) return;
  const names: ErrorName[] = tag === 'Admin' ? ['invalidRequest', 'adminUnauthorized', 'adminForbidden', 'notFound', 'internal'] : [...COMMON_ERRORS];
  op.responses = { ...responses, ...errorResponses(names, 'json') };
}

/** One generated operation, completed from its route's doc, its page entry, or the fallbacks of the admin API. */
function completeOperation(op: Json, key: string, forms: Set<FormDoc>): Json {
  const doc = op[DOC_KEY] as RouteDoc | undefined;
  delete op[DOC_KEY];
  const page = PAGES[key];
  if (doc && ('form' in doc || 'byGet' in doc)) {
    const whole = wholeOperation(doc, forms);
    return { ...op, ...asJson(whole), description: [op.description, whole.description].filter(Boolean).join('\n\n') };
  }
  if (doc) jsonOperationPatch(op, doc);
  else if (page) return { ...op, ...asJson(pageOperation(page)) };
  else {
    fillMissingAnswer(op, key);
    fillMissingErrors(op, (op.tags as string[] | undefined)?.[0]);
  }
  return op;
}

const OPENAPI_INFO = {
  title: 'Portcullis payment gateway',
  // The release (package.json, set by scripts/release.mjs); the Checkout paths keep their /api/v1/ (interface.md).
  version: VERSION,
  description: [
    'Hosted Checkout (JSON), hosted payment fields, S2S CARD and S2S APM (form bodies), payer pages and the sandbox, wire-compatible with the Akurateco platform family.',
    '',
    `Every merchant request is signed with a **hash** over some of its fields and the merchant password (never sent); each operation's description gives its recipe, and docs/merchants/hashes.md has worked examples. The examples here are signed for merchant_key \`${DEMO.key}\` and password \`${DEMO.password}\` (\`DEMO_MERCHANT_KEY=${DEMO.key} DEMO_MERCHANT_PASSWORD=${DEMO.password} npm start\`).`,
    '',
    'Errors are JSON `{http_code, error_code, error_message, errors?}` (S2S adds `"result": "ERROR"`). Every merchant POST accepts an `Idempotency-Key` header. Callbacks are described in the `webhooks` section. A typed Node.js SDK is in sdk/node.',
  ].join('\n'),
};

export const SWAGGER_OPTIONS: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    components: { securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer' }, portalSession: { type: 'apiKey' as const, in: 'cookie' as const, name: 'portcullis_portal' } } },
    tags: [
      { name: 'Checkout', description: 'JSON API: sessions, follow-ups, recurring, card credit, hosted payment fields' },
      { name: 'S2S CARD', description: 'Form API for card payments (PCI DSS scope), schedules' },
      { name: 'S2S APM', description: 'Form API for alternative payment methods' },
      { name: 'Hosted pages', description: 'Pages for the payer (HTML), the sandbox ACS and provider pages' },
      { name: 'Sandbox', description: 'Test clock and sandbox tools' },
      { name: 'Admin', description: 'Operator API (Bearer token)' },
      { name: 'Portal', description: 'Merchant portal API (session cookie and CSRF header; every route scoped to the user\'s merchants)' },
      { name: 'Operations', description: 'Health and metrics' },
    ],
  },
  /** Hands each route's doc on to transformObject, and un-hides the payer pages so they are listed; Fastify itself never sees this. */
  transform({ schema, url, route }) {
    const doc = route.config?.doc;
    if (doc) return { schema: { ...(schema as Json), [DOC_KEY]: doc } as typeof schema, url };
    const method = (Array.isArray(route.method) ? route.method[0] : route.method)?.toString().toLowerCase();
    const page = PAGES[`${method} ${openapiPath(url)}`];
    if (!page) return { schema, url };
    return { schema: { ...(schema as Json), hide: false, tags: [page.tag ?? 'Hosted pages'], summary: page.summary } as typeof schema, url };
  },
  transformObject(documentObject) {
    const doc = (documentObject as { openapiObject: unknown }).openapiObject as { paths: Record<string, Record<string, Json>>; components: { schemas?: Json }; webhooks?: Json };
    const forms = new Set<FormDoc>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) ops[method] = completeOperation(op, `${method} ${path}`, forms);
    }
    doc.components.schemas = { ...(doc.components.schemas ?? {}), ...asJson({ Error: ErrorBody, S2sError: S2sErrorBody, ...formComponents(forms) }) };
    doc.paths = placeSandboxPaths(doc.paths);
    doc.webhooks = asJson(webhooks());
    return doc as never;
  },
};

// --- the /docs page -------------------------------------------------------------------------------------------

/**
 * Swagger UI made accessible (axe: no critical or serious violation): the base layout without the top bar
 * (its logo has no text alternative, its URL box no label), summaries without a link nested in their button,
 * and colours with enough contrast.
 */
const A11Y_CSS = [
  '.swagger-ui .info .title small pre, .swagger-ui .info .title small.version-stamp pre { color: #fff; background: #1f5f1f; }',
  '.swagger-ui .info .title small { background: #1f5f1f; }',
  '.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.nostyle { color: #1a4f8b; }',
  '.swagger-ui .btn span, .swagger-ui .btn { color: #1b1b1b; }',
  '.swagger-ui .opblock .opblock-summary-method { color: #fff; background: #1b1b1b; }',
  '.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1f6f4a; }',
  '.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1a4f8b; }',
  '.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }',
  '.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #1d6b63; }',
  '.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #a00000; }',
  '.swagger-ui .opblock-tag small, .swagger-ui .opblock-summary-description, .swagger-ui .parameter__in, .swagger-ui .prop-format, .swagger-ui .parameter__type, .swagger-ui .response-col_links, .swagger-ui .renderedMarkdown p, .swagger-ui table thead tr td, .swagger-ui table thead tr th { color: #1b1b1b; }',
  '.swagger-ui .model-title, .swagger-ui .model, .swagger-ui .model .property, .swagger-ui .prop-type { color: #1b1b1b; }',
  '.swagger-ui .tab li, .swagger-ui .tab li button.tablinks, .swagger-ui .opblock-description-wrapper p, .swagger-ui .response-control-media-type__accept-message { color: #1b1b1b; }',
  '.swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required:after { color: #a00000; }',
].join('\n');

/**
 * The /docs pages' own script: Swagger UI renders its example pickers as selects without a name; name each from
 * its context. It runs once per animation frame at most, however many changes the page makes meanwhile (run on
 * every mutation it made rendering the page quadratic in its size).
 */
const DOCS_JS = `(function () {
  var queued = false;
  function nameSelects() {
    queued = false;
    document.querySelectorAll('select:not([aria-label])').forEach(function (select) {
      var labelled = select.id && document.querySelector('label[for="' + select.id + '"]');
      if (labelled || select.closest('label')) return;
      var row = select.closest('tr[data-code]');
      var kind = select.classList.contains('examples-select-element') ? 'Example' : 'Choice';
      select.setAttribute('aria-label', row ? kind + ' for answer ' + row.getAttribute('data-code') : kind);
    });
  }
  new MutationObserver(function () {
    if (queued) return;
    queued = true;
    requestAnimationFrame(nameSelects);
  }).observe(document.documentElement, { childList: true, subtree: true });
})();`;

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The tag of the operator API, whose operations /docs/admin shows and /docs leaves out. */
export const ADMIN_TAG = 'Admin';

type Spec = { info: Json & { description?: string }; paths: Record<string, Record<string, Json>>; tags?: { name: string }[]; webhooks?: Json };

/**
 * One page's part of the document: the operations whose first tag is (admin) or is not (merchant) the admin API's.
 * Swagger UI 5.34 stops rendering, without an error, when more than about 120 operations are open at once: the
 * merchant-facing sections and the admin API (over 80 operations) each stay under it on a page of their own.
 * A shallow copy: the cached document is never changed.
 */
export function docsSection(spec: Spec, section: 'merchant' | 'admin'): Spec {
  const admin = section === 'admin';
  const paths: Spec['paths'] = {};
  for (const [path, item] of Object.entries(spec.paths)) {
    const ops = Object.entries(item).filter(([key]) => HTTP_METHODS.has(key));
    const kept = ops.filter(([, op]) => ((op.tags as string[] | undefined)?.[0] === ADMIN_TAG) === admin);
    if (kept.length === 0) continue;
    paths[path] = kept.length === ops.length ? item : { ...Object.fromEntries(Object.entries(item).filter(([key]) => !HTTP_METHODS.has(key))), ...Object.fromEntries(kept) };
  }
  const description = admin
    ? 'The operator API under /admin/v1 (Bearer token of an operator user): merchants, MIDs, routing, payments, callbacks, users, the audit log. The merchant-facing API is at [/docs](/docs); the whole document, both parts, at [/docs/json](/docs/json).'
    : `${spec.info.description ?? ''}\n\nThe operator API (admin) has a page of its own: [/docs/admin](/docs/admin). The whole document, both parts, is at [/docs/json](/docs/json).`;
  const { webhooks, ...rest } = spec;
  return {
    ...rest,
    // The callbacks are the merchants' part.
    ...(admin || webhooks === undefined ? {} : { webhooks }),
    info: { ...spec.info, ...(admin ? { title: `${String(spec.info.title)}: admin API` } : {}), description },
    paths,
    ...(spec.tags ? { tags: spec.tags.filter((t) => (t.name === ADMIN_TAG) === admin) } : {}),
  };
}

const UI_CONFIG = { layout: 'BaseLayout', deepLinking: false, docExpansion: 'list', defaultModelsExpandDepth: 0, syntaxHighlight: false } as const;
const THEME = { title: 'Portcullis API', css: [{ filename: 'a11y.css', content: A11Y_CSS }], js: [{ filename: 'docs.js', content: DOCS_JS }] };

/**
 * The document signed for the running demo merchant (`npm start` outside production), so that its examples work
 * as they are ("Try it out") on a fresh store; for the fixed DEMO merchant when there is none. Made once per merchant.
 */
function signedFor(docsMerchant: (() => DocsMerchant | undefined) | undefined) {
  const cache = new Map<unknown, { key: string; doc: unknown }>();
  return <T>(spec: T): T => {
    const m = docsMerchant?.();
    if (!m) return spec;
    const hit = cache.get(spec);
    if (hit && hit.key === `${m.key}\n${m.password}`) return hit.doc as T;
    const doc = JSON.parse(resignDocument(JSON.stringify(spec), m)) as T;
    cache.set(spec, { key: `${m.key}\n${m.password}`, doc });
    return doc;
  };
}

/**
 * /docs: the merchant-facing sections, open. Its page asks for `/docs/json?section=merchant` (a request
 * interceptor, Swagger UI's own hook for the document's request); `/docs/json` itself answers the whole document.
 * Both signed for the running demo merchant when there is one.
 */
export function swaggerUiOptions(docsMerchant?: () => DocsMerchant | undefined): FastifySwaggerUiOptions {
  const sign = signedFor(docsMerchant);
  let merchantPart: { whole: unknown; part: Spec } | undefined;
  const merchantSection = (spec: Spec) => {
    if (merchantPart?.whole !== spec) merchantPart = { whole: spec, part: docsSection(spec, 'merchant') };
    return merchantPart.part;
  };
  return {
    routePrefix: '/docs',
    uiConfig: {
      ...UI_CONFIG,
      // Serialized into the page as it is written (a function's text): plain browser JavaScript.
      requestInterceptor: function (req) {
        if (req.loadSpec && /\/docs\/json$/.test(req.url)) req.url += '?section=merchant';
        return req;
      },
    },
    theme: THEME,
    transformSpecificationClone: false,
    transformSpecification: (spec, req) => sign((req.query as { section?: unknown }).section === 'merchant' ? merchantSection(spec as Spec) : spec),
  };
}

/** /docs/admin: the operator API alone, open; its document at /docs/admin/json. */
export const ADMIN_SWAGGER_UI_OPTIONS: FastifySwaggerUiOptions = {
  routePrefix: '/docs/admin',
  uiConfig: UI_CONFIG,
  theme: { ...THEME, title: 'Portcullis admin API' },
  transformSpecificationClone: false,
  transformSpecification: (spec) => docsSection(spec as Spec, 'admin'),
};
