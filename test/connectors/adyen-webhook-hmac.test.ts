/**
 * Issue 25 item 25: Adyen signs a standard notification over its eight fields joined with ':' as they are (its
 * libraries do not escape them; escaping belongs to the key-value form). The signature here is computed the way
 * Adyen computes it, independently of the connector, and posted to our notification endpoint over HTTP.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

const HMAC_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

interface Item { pspReference: string; originalReference?: string; merchantAccountCode: string; merchantReference: string; amount: { value: number; currency: string }; eventCode: string; success: string; additionalData?: Record<string, string> }

/** Adyen's signing: HMAC-SHA256 (hex key) over the eight fields joined with ':', base64. */
function adyenSignature(item: Item, hexKey: string, join: (v: string) => string = (v) => v): string {
  const fields = [item.pspReference, item.originalReference ?? '', item.merchantAccountCode, item.merchantReference, String(item.amount.value), item.amount.currency, item.eventCode, item.success];
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(fields.map(join).join(':'), 'utf8').digest('base64');
}

const escaped = (v: string) => v.replace(/\\/g, '\\\\').replace(/:/g, '\\:');

for (const { kind, skip } of await storeKinds()) {
  describe(`adyen notifications: the HMAC signing string as Adyen's libraries build it (${kind})`, { skip }, () => {
    let gw: TestGateway;
    const midId = crypto.randomUUID();
    before(async () => {
      gw = await startTestGateway(kind, {
        sandbox: false,
        mids: [{ id: midId, paymentMode: 'SMS/DMS', connector: 'adyen', settings: { baseUrl: 'https://checkout-test.adyen.com', merchantAccount: 'Portcullis:ECOM', environment: 'test' }, credentials: { apiKey: 'k', hmacKey: HMAC_KEY } }],
      });
    });
    after(async () => { await gw?.close(); });

    function post(item: Item) {
      return fetch(`${gw.baseUrl}/connectors/adyen/${midId}/notify`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] }),
      });
    }

    const item = (): Item => ({
      pspReference: '7914073381342284', merchantAccountCode: 'Portcullis:ECOM', merchantReference: 'order:2026\\11:28',
      amount: { value: 1130, currency: 'EUR' }, eventCode: 'AUTHORISATION', success: 'true',
    });

    it('a notification whose reference and account hold colons and a backslash verifies, signed unescaped', async () => {
      const signed = item();
      signed.additionalData = { hmacSignature: adyenSignature(signed, HMAC_KEY) };
      const res = await post(signed);
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(await res.text(), '[accepted]');
    });

    it('the same notification signed over the escaped string is refused (401), as is a tampered one', async () => {
      const wrong = item();
      wrong.additionalData = { hmacSignature: adyenSignature(wrong, HMAC_KEY, escaped) };
      assert.equal((await post(wrong)).status, 401);
      const tampered = item();
      tampered.additionalData = { hmacSignature: adyenSignature(tampered, HMAC_KEY) };
      tampered.amount.value = 1;
      assert.equal((await post(tampered)).status, 401);
    });
  });
}
