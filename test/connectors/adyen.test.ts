/**
 * The Adyen connector's transformers against Adyen's own description: every request it sends validates against
 * CheckoutService-v71.json, and the description's named examples, replayed as Adyen's answers, become the
 * outcomes they mean. Webhooks are verified with their HMAC signature (Webhooks-v1.json examples, signed here
 * with a test key). Refusals map through the error table.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdyenConnector, hmacSignature } from '../../src/connectors/adyen/adyen.ts';
import { ADYEN_ERRORS } from '../../src/connectors/adyen/errors.ts';
import { classify } from '../../src/connectors/error-codes.ts';
import { DECLINES } from '../../src/domain/declines.ts';
import { ConnectorRejection, NO_CARD, type AuthorizeRequest, type MidAccess } from '../../src/connectors/types.ts';
import { unsentParameterSets } from '../../src/domain/card-parameter-sets.ts';
import { Secret } from '../../src/domain/secret.ts';
import { exponentOf } from '../../src/domain/money.ts';
import { adyenUnavailable, adyenSpec, example, ReplayPort, webhookExample } from './adyen-support.ts';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const mid: MidAccess = {
  id: 'mid-1',
  settings: { baseUrl: 'https://checkout-test.adyen.com/v71', merchantAccount: 'PortcullisECOM', environment: 'test' },
  credentials: new Secret({ apiKey: 'test-api-key', hmacKey: HMAC_KEY }),
  descriptor: 'PORTCULLIS*SHOP',
};

const request = (over: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  paymentId: '0192a7c4-0000-7000-8000-000000000001',
  intent: 'sale',
  amount: 1000n,
  currency: 'USD',
  card: { pan: '4111111111111111', expMonth: '03', expYear: '2030', cvv: '737', holder: 'John Smith' },
  payerIp: '203.0.113.7',
  orderId: 'ORDER-1',
  description: 'Order 1',
  payer: { email: 'doe@example.com', firstName: 'John', lastName: 'Doe', phone: '+31201234567', country: 'NL', city: 'Amsterdam', address: 'Dam 1', zip: '1012JS' },
  returnUrl: 'https://gateway.example/connectors/return/0192a7c4-0000-7000-8000-000000000001',
  idempotencyKey: '0192a7c4-0000-7000-8000-000000000001',
  ...over,
});

const routes = (map: Record<string, { status: number; body: unknown }>) => (req: { url: string }) => {
  const key = Object.keys(map).find((k) => req.url.endsWith(k));
  if (!key) throw new Error(`no answer for ${req.url}`);
  return map[key]!;
};

describe('adyen connector against Adyen\'s API description', { skip: adyenUnavailable }, () => {
  it('card sale: a request valid against PaymentRequest; the card-direct example is an approval', async () => {
    const port = new ReplayPort(routes({ '/payments': { status: 200, body: example('post-payments-card-direct-200') } }));
    const outcome = await new AdyenConnector(port, exponentOf).authorize(request(), mid);
    const [x] = port.exchanges;
    assert.deepEqual(x!.errors, []);
    // The validator does refuse what Adyen would: no merchantAccount, a string amount.
    assert.ok(adyenSpec().validate('/payments', { ...x!.body, merchantAccount: undefined }).length > 0);
    assert.ok(adyenSpec().validate('/payments', { ...x!.body, amount: { currency: 'USD', value: '10.00' } }).length > 0);
    assert.equal(x!.request.headers?.['idempotency-key'], '0192a7c4-0000-7000-8000-000000000001');
    assert.equal(x!.request.headers?.['x-api-key'], 'test-api-key');
    assert.deepEqual(x!.body.amount, { currency: 'USD', value: 1000 });
    assert.equal(x!.body.reference, '0192a7c4-0000-7000-8000-000000000001');
    assert.equal(x!.body.shopperStatement, 'PORTCULLIS*SHOP', "the MID's descriptor");
    assert.equal(outcome.kind, 'approved');
    assert.equal(outcome.kind === 'approved' && outcome.reference, '993617895204576J');
    assert.equal(outcome.kind === 'approved' && outcome.approvalCode, '044925');
    // The example echoes merchantReference "string": the core's integrity check would hold it (reported here).
    assert.equal(outcome.kind === 'approved' && outcome.reported?.reference, 'string');
  });

  it('require_3ds (the risk engine): attemptAuthentication always and a challenge requested (03), valid against PaymentRequest', async () => {
    const port = new ReplayPort(routes({ '/payments': { status: 200, body: example('post-payments-card-direct-200') } }));
    const c = new AdyenConnector(port, exponentOf);
    await c.authorize(request({ challenge: 'required' }), mid);
    const [x] = port.exchanges;
    assert.deepEqual(x!.errors, []);
    assert.equal((x!.body.authenticationData as { attemptAuthentication?: string }).attemptAuthentication, 'always');
    assert.deepEqual(x!.body.threeDS2RequestData, { threeDSRequestorChallengeInd: '03' });
    const plain = c.paymentRequest(request(), mid);
    assert.equal((plain.authenticationData as { attemptAuthentication?: string }).attemptAuthentication, undefined, 'no challenge asked otherwise');
    assert.equal(plain.threeDS2RequestData, undefined);
  });

  it('auth: manualCapture, and the capture, refund, cancel and reversal requests validate; 201 "received" is pending', async () => {
    const port = new ReplayPort(routes({
      '/payments': { status: 200, body: example('post-payments-card-direct-200') },
      '/captures': { status: 201, body: example('post-payments-paymentPspReference-captures-capture-201') },
      '/refunds': { status: 201, body: example('post-payments-paymentPspReference-refunds-refund-201') },
      '/cancels': { status: 201, body: example('post-payments-paymentPspReference-cancels-cancel-with-psp-reference-201') },
      '/reversals': { status: 201, body: example('post-payments-paymentPspReference-reversals-reversal-201') },
    }));
    const c = new AdyenConnector(port, exponentOf);
    await c.authorize(request({ intent: 'auth' }), mid);
    assert.deepEqual(port.exchanges[0]!.body.additionalData, { manualCapture: 'true' });
    const follow = { paymentId: request().paymentId, transId: 'tx-1', reference: '993617895204576J', amount: 1000n, currency: 'USD', card: { expMonth: '03', expYear: '2030' } };
    for (const op of ['capture', 'refund', 'reverse', 'void'] as const) {
      const outcome = await c[op](follow, mid);
      assert.equal(outcome.kind, 'pending', op);
    }
    assert.deepEqual(port.exchanges.map((x) => new URL(x.request.url).pathname), [
      '/v71/payments', '/v71/payments/993617895204576J/captures', '/v71/payments/993617895204576J/refunds',
      '/v71/payments/993617895204576J/cancels', '/v71/payments/993617895204576J/reversals',
    ]);
    for (const x of port.exchanges) assert.deepEqual(x.errors, [], x.request.url);
    assert.deepEqual(port.exchanges[1]!.body, { merchantAccount: 'PortcullisECOM', reference: request().paymentId, amount: { currency: 'USD', value: 1000 } });
    assert.equal(port.exchanges[1]!.request.headers?.['idempotency-key'], 'tx-1');
  });

  it('3-D Secure 2 redirect: RedirectShopper is a challenge on the issuer page; /payments/details with redirectResult approves', async () => {
    const port = new ReplayPort(routes({
      '/payments': { status: 200, body: example('post-payments-card-3d-secure-redirect-200') },
      '/payments/details': { status: 200, body: example('post-payments-details-00.redirect-200') },
    }));
    const c = new AdyenConnector(port, exponentOf);
    const first = await c.authorize(request({ browser: { userAgent: 'Mozilla/5.0', acceptHeader: 'text/html' } }), mid);
    assert.equal(first.kind, 'challenge');
    assert.deepEqual(first.kind === 'challenge' && first.page, { url: 'https://checkoutshopper-test.adyen.com/checkoutshopper/threeDS/redirect...', method: 'GET', params: {} });
    assert.deepEqual(port.exchanges[0]!.body.authenticationData, { threeDSRequestData: { nativeThreeDS: 'disabled' } });
    const done = await c.complete(first.kind === 'challenge' ? first.state : {}, { decision: 'returned', params: { redirectResult: example('post-payments-details-00.redirect').details.redirectResult } }, mid);
    assert.equal(done.kind, 'approved');
    assert.equal(done.kind === 'approved' && done.reference, 'V4HZ4RBFJGXXGN82');
    assert.deepEqual(port.exchanges[1]!.errors, []);
    assert.deepEqual(port.exchanges[1]!.body, example('post-payments-details-00.redirect'));
  });

  it('native 3-D Secure 2: the threeDS2 fingerprint then challenge actions become our page steps; /payments/details carries their results', async () => {
    const nativeMid: MidAccess = { ...mid, settings: { ...mid.settings, nativeThreeDS: true } };
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');
    // The description's native example, its token (truncated there) replaced by one an ACS would give.
    const identify = structuredClone(example('post-payments-card-3d-secure-2-web-200'));
    identify.action.token = b64({ threeDSMethodNotificationURL: 'https://checkoutshopper-test.adyen.com/notify', threeDSMethodUrl: 'https://acs.example/method', threeDSServerTransID: 'srv-1' });
    const challenge = structuredClone(example('post-payments-card-3d-secure-2-web-200'));
    Object.assign(challenge, { resultCode: 'ChallengeShopper' });
    Object.assign(challenge.action, { subtype: 'challenge', token: b64({ acsReferenceNumber: 'ADYEN-ACS', acsTransID: 'acs-1', acsURL: 'https://acs.example/challenge', messageVersion: '2.2.0', threeDSServerTransID: 'srv-1' }) });
    let details = 0;
    const port = new ReplayPort((req) => {
      if (req.url.endsWith('/payments')) return { status: 200, body: identify };
      details += 1;
      return { status: 200, body: details === 1 ? challenge : example('post-payments-details-00.redirect-200') };
    });
    const c = new AdyenConnector(port, exponentOf);
    const browser = { userAgent: 'Mozilla/5.0', acceptHeaders: 'text/html', language: 'nl-NL', colorDepth: '24', screenHeight: '900', screenWidth: '1440', timezoneOffset: '-60', javaEnabled: 'false' };
    const first = await c.authorize(request({ browser }), nativeMid);
    assert.deepEqual(port.exchanges[0]!.errors, []);
    assert.deepEqual(port.exchanges[0]!.body.browserInfo, { userAgent: 'Mozilla/5.0', acceptHeader: 'text/html', language: 'nl-NL', colorDepth: 24, screenHeight: 900, screenWidth: 1440, timeZoneOffset: -60, javaEnabled: false });
    assert.deepEqual(port.exchanges[0]!.body.authenticationData, { threeDSRequestData: { nativeThreeDS: 'preferred' } });
    assert.equal(first.kind, 'challenge');
    if (first.kind !== 'challenge') return;
    assert.deepEqual(first.page, { url: `${request().returnUrl}/3ds2`, method: 'GET', params: {} }, 'our page drives the step');
    assert.equal(first.native?.kind, 'method');
    assert.equal(first.native?.url, 'https://acs.example/method');
    assert.deepEqual(JSON.parse(Buffer.from(first.native!.value, 'base64url').toString()), { threeDSServerTransID: 'srv-1', threeDSMethodNotificationURL: 'https://checkoutshopper-test.adyen.com/notify' });

    const second = await c.complete(first.state, { decision: 'returned', params: { threeDSCompInd: 'Y' } }, nativeMid);
    const fingerprint = port.exchanges[1]!;
    assert.deepEqual(fingerprint.errors, [], 'a valid PaymentDetailsRequest');
    assert.equal(fingerprint.body.paymentData, identify.action.paymentData);
    assert.deepEqual(JSON.parse(Buffer.from(fingerprint.body.details['threeds2.fingerprint'], 'base64').toString()), { threeDSCompInd: 'Y' });
    assert.equal(second.kind, 'challenge');
    if (second.kind !== 'challenge') return;
    assert.equal(second.native?.kind, 'challenge');
    assert.equal(second.native?.url, 'https://acs.example/challenge');
    assert.deepEqual(JSON.parse(Buffer.from(second.native!.value, 'base64url').toString()), { threeDSServerTransID: 'srv-1', acsTransID: 'acs-1', messageVersion: '2.2.0', messageType: 'CReq', challengeWindowSize: '05' });

    const done = await c.complete(second.state, { decision: 'returned', params: { transStatus: 'Y' } }, nativeMid);
    const result = port.exchanges[2]!;
    assert.deepEqual(result.errors, []);
    const sent = JSON.parse(Buffer.from(result.body.details.threeDSResult, 'base64').toString());
    assert.deepEqual(sent, { transStatus: 'Y', authorisationToken: challenge.action.authorisationToken });
    // The description's own request example has the same shape.
    assert.deepEqual(Object.keys(example('post-payments-details-3d-secure-2-native').details), Object.keys(result.body.details));
    assert.equal(done.kind, 'approved');
    // A result that is not an EMV value is not sent: nothing to ask Adyen.
    assert.equal((await c.complete(second.state, { decision: 'returned', params: { transStatus: 'maybe' } }, nativeMid)).kind, 'pending');
  });

  it('wallet tokens as they are (virtual flow): applepay and googlepay payment methods valid against the description', async () => {
    const c = new AdyenConnector(new ReplayPort(() => ({ status: 200, body: {} })), exponentOf);
    assert.equal(c.walletTokens, true, 'the capability the wallet flow asks for');
    const appleData = { version: 'EC_v1', data: 'c2VjcmV0', signature: 'c2ln', header: { ephemeralPublicKey: 'a2V5', publicKeyHash: 'aGFzaA==', transactionId: 'abc' } };
    const googleToken = { signature: 'MEQ=', intermediateSigningKey: { signedKey: '{}', signatures: ['MEU='] }, protocolVersion: 'ECv2', signedMessage: '{"encryptedMessage":"x"}' };
    const appleB64 = Buffer.from(JSON.stringify(appleData)).toString('base64');
    const cases = [
      // Apple: Adyen takes the base64 of the paymentData JSON, whether we were given the JSON or its base64.
      { name: 'applepay' as const, token: JSON.stringify(appleData), expected: { type: 'applepay', applePayToken: appleB64 } },
      { name: 'applepay' as const, token: appleB64, expected: { type: 'applepay', applePayToken: appleB64 } },
      // Google: Adyen takes the token's JSON text.
      { name: 'googlepay' as const, token: JSON.stringify(googleToken), expected: { type: 'googlepay', googlePayToken: JSON.stringify(googleToken) } },
      { name: 'googlepay' as const, token: Buffer.from(JSON.stringify(googleToken)).toString('base64'), expected: { type: 'googlepay', googlePayToken: JSON.stringify(googleToken) } },
    ];
    for (const x of cases) {
      const body = c.paymentRequest(request({ card: NO_CARD, wallet: { name: x.name, token: x.token } }), mid);
      assert.deepEqual(adyenSpec().validate('/payments', body), [], x.name);
      assert.deepEqual(body.paymentMethod, x.expected);
      assert.equal(body.reference, request().paymentId);
      assert.deepEqual(body.amount, { currency: 'USD', value: 1000 });
      assert.equal(body.mpiData, undefined, 'Adyen authenticates a token it decrypts');
    }
    // The description's own Apple Pay request has the same payment method members.
    assert.deepEqual(Object.keys(example('post-payments-applepay').paymentMethod).sort(), Object.keys(cases[0]!.expected).sort());
    const port = new ReplayPort(routes({ '/payments': { status: 200, body: example('post-payments-card-direct-200') } }));
    const outcome = await new AdyenConnector(port, exponentOf).authorize(request({ card: NO_CARD, wallet: { name: 'googlepay', token: JSON.stringify(googleToken) } }), mid);
    assert.deepEqual(port.exchanges[0]!.errors, []);
    assert.equal(port.exchanges[0]!.body.paymentMethod.type, 'googlepay');
    assert.notEqual(outcome.kind, 'pending');
  });

  it('decrypted wallet cards: the cryptogram and ECI as mpiData, the wallet as brand, valid against the description', async () => {
    const c = new AdyenConnector(new ReplayPort(() => ({ status: 200, body: {} })), exponentOf);
    assert.equal(c.decryptedWalletCards, true);
    const cryptogram = Buffer.from('0123456789abcdefghij').toString('base64');
    const dpan = { pan: '4895370012003478', expMonth: '12', expYear: '2030' };
    const apple = c.paymentRequest(request({ card: dpan, wallet: { name: 'applepay', authMethod: 'CRYPTOGRAM_3DS', cryptogram, eci: '07' } }), mid);
    assert.deepEqual(adyenSpec().validate('/payments', apple), []);
    assert.deepEqual(apple.paymentMethod, { type: 'scheme', number: '4895370012003478', expiryMonth: '12', expiryYear: '2030', brand: 'applepay' });
    assert.deepEqual(apple.mpiData, { cavv: cryptogram, eci: '07', directoryResponse: 'Y', authenticationResponse: 'Y' });
    const google = c.paymentRequest(request({ wallet: { name: 'googlepay', authMethod: 'CRYPTOGRAM_3DS', cryptogram, eci: '05' } }), mid);
    assert.deepEqual(adyenSpec().validate('/payments', google), []);
    assert.equal((google.paymentMethod as { brand: string }).brand, 'googlepay');
    // Google Pay PAN_ONLY: the card alone, no cryptogram to send (3-D Secure stays the acquirer's).
    const panOnly = c.paymentRequest(request({ wallet: { name: 'googlepay', authMethod: 'PAN_ONLY' } }), mid);
    assert.deepEqual(adyenSpec().validate('/payments', panOnly), []);
    assert.equal(panOnly.mpiData, undefined);
    assert.equal(c.paymentRequest(request(), mid).mpiData, undefined, 'a card payment sends none');
  });

  it('stored cards: the first payment stores it, later ones are ContAuth with the recurring model', async () => {
    const port = new ReplayPort(routes({ '/payments': { status: 200, body: example('post-payments-subscription-first-transaction-200') } }));
    const c = new AdyenConnector(port, exponentOf);
    await c.authorize(request({ storedCard: { initiator: 'cardholder', source: 'ecommerce', sequence: 'first' } }), mid);
    await c.authorize(request({ storedCard: { initiator: 'merchant', source: 'recurring', sequence: 'subsequent', networkReference: 'NETREF123' } }), mid);
    await c.authorize(request({ storedCard: { initiator: 'merchant', source: 'unscheduled', sequence: 'subsequent' } }), mid);
    const [first, sub, unscheduled] = port.exchanges.map((x) => x.body);
    for (const x of port.exchanges) assert.deepEqual(x.errors, []);
    assert.equal(first!.storePaymentMethod, true);
    assert.equal(first!.shopperInteraction, 'Ecommerce');
    assert.equal(first!.recurringProcessingModel, 'CardOnFile');
    assert.equal(sub!.shopperInteraction, 'ContAuth');
    assert.equal(sub!.recurringProcessingModel, 'Subscription');
    assert.equal(sub!.paymentMethod.networkPaymentReference, 'NETREF123');
    assert.equal(unscheduled!.recurringProcessingModel, 'UnscheduledCardOnFile');
  });

  it('card sets 1 to 6 where Adyen has a place for them; the rest reported as not sent', async () => {
    const parameters = {
      bnrg_installm_def: '00', bnrg_installm_months: '03', bnrg_installm_plan: '03',
      document_type: 'cpf', document_number: '12345678909', social_name: 'Joao', fiscal_country: 'BR',
      descriptor: 'SHOP*ORDER1',
      customer_phone: '+5511999999999',
      payer_identity_type: 'passport', payer_identity_id: 'X123',
      shipping: { street1: 'Rua A', city: 'Sao Paulo', postcode: '01000-000', country: 'BR' },
      cart: { items: [{ name: 'Shoes', merchantItemId: 'SKU-1', quantity: '2', price: '5.00', taxAmount: '0.50' }] },
    };
    const port = new ReplayPort(routes({ '/payments': { status: 200, body: example('post-payments-card-direct-200') } }));
    const c = new AdyenConnector(port, exponentOf);
    await c.authorize(request({ parameters, currency: 'BRL' }), mid);
    const [x] = port.exchanges;
    assert.deepEqual(x!.errors, []);
    assert.deepEqual(x!.body.installments, { value: 3 });
    assert.equal(x!.body.socialSecurityNumber, '12345678909');
    assert.equal(x!.body.shopperStatement, 'SHOP*ORDER1');
    assert.equal(x!.body.telephoneNumber, '+5511999999999');
    assert.deepEqual(x!.body.deliveryAddress, { street: 'Rua A', houseNumberOrName: '', city: 'Sao Paulo', postalCode: '01000-000', country: 'BR' });
    assert.deepEqual(x!.body.lineItems, [{ description: 'Shoes', id: 'SKU-1', quantity: 2, amountIncludingTax: 500, taxAmount: 50 }]);
    assert.deepEqual(unsentParameterSets(parameters, c.parameterSets), ['payer_and_payee_identity']);
  });

  it("Adyen's refusals and API errors map through the error table (test cards, holder-name triggers)", async () => {
    // Adyen's test engine refuses by holder name: the name is the refusal ("CVC_DECLINED" -> "CVC Declined", code 24).
    const refusal = (code: string, reason: string) => new ReplayPort(() => ({ status: 200, body: { pspReference: 'PSP1', resultCode: 'Refused', refusalReason: reason, refusalReasonCode: code, merchantReference: request().paymentId } }));
    const cases: [string, string, keyof typeof DECLINES][] = [
      ['24', 'CVC Declined', 'invalid_cvv'], ['12', 'Not enough balance', 'insufficient_funds'], ['6', 'Expired Card', 'expired_card'],
      ['5', 'Blocked Card', 'restricted_card'], ['11', '3D Not Authenticated', 'authentication_failed'], ['20', 'FRAUD', 'fraud_suspected'],
      ['2', 'Refused', 'declined'], ['99', 'Something new', 'declined'],
    ];
    for (const [code, reason, unified] of cases) {
      const outcome = await new AdyenConnector(refusal(code, reason), exponentOf).authorize(request({ card: { ...request().card, holder: reason.toUpperCase().replace(/ /g, '_') } }), mid);
      assert.equal(outcome.kind, 'declined', reason);
      if (outcome.kind !== 'declined') continue;
      assert.equal(outcome.error?.code, unified, reason);
      assert.equal(outcome.error?.rawCode, code);
      assert.equal(outcome.error?.rawMessage, reason);
      assert.equal(outcome.reason, DECLINES[unified].message);
    }
    assert.equal(classify(ADYEN_ERRORS, undefined, 'cvc declined').code, 'invalid_cvv', 'texts match whatever their case');
    for (const [status, unified] of [[422, 'invalid_request'], [401, 'configuration_error'], [403, 'configuration_error']] as const) {
      const generic = adyenSpec().spec.paths['/payments'].post.responses[String(status)].content['application/json'].examples.generic.value;
      const body = { ...generic, errorCode: status === 422 ? '100' : '010' };
      const outcome = await new AdyenConnector(new ReplayPort(() => ({ status, body })), exponentOf).authorize(request(), mid);
      assert.equal(outcome.kind, 'declined', String(status));
      assert.equal(outcome.kind === 'declined' && outcome.error?.code, unified);
    }
    const down = await new AdyenConnector(new ReplayPort(() => ({ status: 500, body: adyenSpec().spec.paths['/payments'].post.responses['500'].content['application/json'].examples.generic.value })), exponentOf).authorize(request(), mid);
    assert.equal(down.kind, 'pending', 'a 5xx says nothing about the payment');
  });

  it('webhooks: HMAC-verified AUTHORISATION, CAPTURE, REFUND and CANCELLATION events; a tampered or unsigned one is refused', () => {
    const c = new AdyenConnector(new ReplayPort(() => ({ status: 500, body: {} })), exponentOf);
    const port = c.notifications;
    const signed = (name: string, paymentId: string) => {
      const body = webhookExample(name);
      const item = body.notificationItems[0].NotificationRequestItem;
      item.merchantReference = paymentId;
      item.additionalData = { ...(item.additionalData ?? {}), hmacSignature: hmacSignature(item, HMAC_KEY) };
      return body;
    };
    const read = (body: unknown) => port.readNotification(mid, { headers: {}, rawBody: JSON.stringify(body), body }, new Map());
    const auth = read(signed('post-AUTHORISATION-authorisation', 'pay-1'));
    assert.deepEqual(auth.map((e) => [e.paymentId, e.operation, e.outcome.kind]), [['pay-1', 'authorize', 'approved']]);
    assert.deepEqual(auth[0]!.outcome.kind === 'approved' && auth[0]!.outcome.reported, { amount: 1000n, currency: 'EUR', reference: 'pay-1' });
    // The approval code and the scheme's network reference of AUTHORISATION's additionalData, as the answer's: the
    // webhook settles the payment whenever it overtakes the answer, and later ContAuth charges need the reference.
    const withRefs = signed('post-AUTHORISATION-authorisation', 'pay-8');
    Object.assign(withRefs.notificationItems[0].NotificationRequestItem.additionalData, { authCode: '065696', networkTxReference: '999856789012345' });
    const [settled] = read(withRefs);
    assert.equal(settled!.outcome.kind === 'approved' && settled!.outcome.storedCardReference, '999856789012345');
    assert.equal(settled!.outcome.kind === 'approved' && settled!.outcome.approvalCode, '065696');
    assert.deepEqual(read(signed('post-CAPTURE-capture', 'pay-2')).map((e) => e.operation), ['capture']);
    assert.deepEqual(read(signed('post-REFUND-refund', 'pay-3')).map((e) => e.operation), ['refund']);
    assert.deepEqual(read(signed('post-CANCELLATION-cancellation', 'pay-4')).map((e) => e.operation), ['reversal']);
    assert.deepEqual(read(signed('post-CAPTURE_FAILED-capture_failed', 'pay-5')).map((e) => [e.operation, e.outcome.kind]), [['capture', 'declined']]);
    assert.deepEqual(port.notificationSubjects({ headers: {}, rawBody: '', body: signed('post-REFUND-refund', 'pay-6') }), ['pay-6']);
    const tampered = signed('post-AUTHORISATION-authorisation', 'pay-7');
    tampered.notificationItems[0].NotificationRequestItem.amount.value = 999999;
    assert.throws(() => read(tampered), ConnectorRejection);
    const unsigned = webhookExample('post-AUTHORISATION-authorisation');
    assert.throws(() => read(unsigned), ConnectorRejection);
    assert.equal(port.notificationAck.body, '[accepted]');
  });

  it('a live MID is live; the test environment is not', () => {
    const c = new AdyenConnector(new ReplayPort(() => ({ status: 500, body: {} })));
    assert.equal(c.isLive(mid), false);
    assert.equal(c.isLive({ ...mid, settings: { ...mid.settings, environment: 'live' } }), true);
  });
});
