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
import { classify, UNIFIED_CODES } from '../../src/connectors/error-codes.ts';
import { ConnectorRejection, type AuthorizeRequest, type MidAccess } from '../../src/connectors/types.ts';
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
    const cases: [string, string, keyof typeof UNIFIED_CODES][] = [
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
      assert.equal(outcome.reason, UNIFIED_CODES[unified].message);
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
