/**
 * How the apm-provider connector reads a provider's answers, against a scripted HTTP port: only an explicit answer
 * decides (a refusal declines with the provider's words, a 5xx or an unreadable body leaves the payment in flight),
 * and every call carries the kind's authentication.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { ProviderApmConnector } from '../../src/connectors/apm-provider/provider-apm.ts';
import type { HttpPort, HttpRequest, HttpResponse } from '../../src/connectors/http.ts';
import type { ApmInitiateRequest } from '../../src/connectors/apm-types.ts';
import { Secret } from '../../src/domain/secret.ts';

class ScriptedPort implements HttpPort {
  readonly sent: HttpRequest[] = [];
  constructor(private readonly answers: ((req: HttpRequest) => Partial<HttpResponse>)[]) {}
  async send(req: HttpRequest): Promise<HttpResponse> {
    this.sent.push(req);
    const next = this.answers.shift();
    if (!next) throw new Error(`unexpected call ${req.url}`);
    return { status: 200, headers: {}, body: '', ...next(req) };
  }
}

const json = (status: number, body: unknown) => () => ({ status, body: JSON.stringify(body) });
const PRIVATE_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function connector(kind: string, port: HttpPort, settings: Record<string, unknown> = {}) {
  return new ProviderApmConnector(port, {
    id: 'mid-1', descriptor: null, settings: { kind, base_url: 'https://provider.example/api/', ...settings },
    credentials: new Secret({ api_key: 'key-1', api_secret: 'secret-1', private_key: PRIVATE_KEY }),
  });
}

const REQUEST: ApmInitiateRequest = {
  paymentId: 'pay-1', method: 'identity-transfer', methodKind: 'payer-identity transfer', experience: 'redirect', intent: 'sale', amount: 1250n, currency: 'EUR',
  orderId: 'order-1', description: 'Order', merchantName: 'Shop', payer: { name: 'Maria da Silva', email: 'm@example.com' }, params: {}, options: {},
  returnUrl: 'https://gw.example/pay/pay-1', notifyUrl: 'https://gw.example/apm/provider/notify/pay-1',
};

describe('apm-provider connector', () => {
  it('header-key: both headers, the split name, OBT; a redirect answer is the payer\'s action', async () => {
    const port = new ScriptedPort([json(201, { id: 'p-9', status: 'pending', redirect_url: 'https://provider.example/pay/p-9' })]);
    const outcome = await connector('identity-transfer', port).initiate(REQUEST);
    assert.deepEqual(outcome, { kind: 'action', reference: 'p-9', action: { kind: 'redirect', url: 'https://provider.example/pay/p-9' } });
    const [sent] = port.sent;
    assert.equal(sent!.url, 'https://provider.example/api/payments');
    assert.deepEqual([sent!.headers!['X-API-Key'], sent!.headers!['X-API-Secret']], ['key-1', 'secret-1']);
    const body = JSON.parse(sent!.body!);
    assert.deepEqual([body.first_name, body.last_name, body.payment_methods, body.amount, body.callback_url], ['Maria', 'da Silva', 'OBT', '12.50', REQUEST.notifyUrl]);
  });

  it('a refusal declines with the provider\'s first field message; a 5xx or an unreadable body stays in flight', async () => {
    const refused = new ScriptedPort([json(400, { http_code: 400, error_code: '100000', error_message: 'Request data is invalid.', errors: [{ error_code: '100000', error_message: 'first_name: This value should not be blank.' }] })]);
    assert.deepEqual(await connector('identity-transfer', refused).initiate(REQUEST), { kind: 'declined', reason: 'first_name: This value should not be blank' });
    assert.equal((await connector('identity-transfer', new ScriptedPort([json(503, {})])).initiate(REQUEST)).kind, 'pending');
    assert.equal((await connector('identity-transfer', new ScriptedPort([() => ({ status: 200, body: '<html>' })])).initiate(REQUEST)).kind, 'pending');
  });

  it('token family: a refused token call declines, a token call without answer stays in flight; the token goes in authorization', async () => {
    const req = { ...REQUEST, method: 'reference-auth' };
    assert.deepEqual(await connector('reference-auth', new ScriptedPort([json(401, { error_message: 'Authorization: Provider credentials are not valid.' })])).initiate(req),
      { kind: 'declined', reason: 'Authorization refused by the provider' });
    assert.equal((await connector('reference-auth', new ScriptedPort([json(502, {})])).initiate(req)).kind, 'pending');
    const port = new ScriptedPort([
      json(200, { access_token: 'tok-1' }), json(201, { gateway_id: 'g-1' }), json(201, { payment_id: 'rp-1', status: 'pending', redirect_url: 'https://provider.example/r' }),
    ]);
    const outcome = await connector('reference-auth', port).initiate({ ...req, recurring: true });
    assert.equal(outcome.kind, 'action');
    const [token, reference, payment] = port.sent;
    assert.equal(token!.headers!.authorization, undefined);
    assert.deepEqual(JSON.parse(reference!.body!), { amount: 12.5, public_id: 'order-1', single: false, callback_url: req.notifyUrl, return_url: req.returnUrl });
    assert.equal(reference!.headers!.authorization, 'tok-1');
    assert.deepEqual([JSON.parse(payment!.body!), payment!.headers!.authorization], [{ gateway_id: 'g-1' }, 'tok-1']);
  });

  it('voucher partner: "Transaction does not exist" is final, any other refusal of a status call is not', async () => {
    const gone = new ScriptedPort([json(400, { error_code: '101000', error_message: 'Transaction does not exist.' })]);
    assert.deepEqual(await connector('voucher-partner', gone).status('P-1:pay-1'), { state: 'rejected', reason: 'Transaction does not exist' });
    const sent = gone.sent[0]!;
    const body = JSON.parse(sent.body!);
    assert.deepEqual([body.PartnerId, body.PublicId, typeof body.Signature], ['P-1', 'pay-1', 'string']);
    assert.deepEqual(await connector('voucher-partner', new ScriptedPort([json(503, {})])).status('P-1:pay-1'), { state: 'pending' });
  });
});
