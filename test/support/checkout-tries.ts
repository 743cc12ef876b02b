/** A payer's tries in one Hosted Checkout session, through the hosted page's form (no browser needed). */
import assert from 'node:assert/strict';
import type { TestGateway, TestMerchant } from './gateway.ts';
import { checkoutHash } from './merchant.ts';

/** Opens a session and pays it once per expiry given (the sandbox's outcome by month: 01 approves, 02 declines). */
export async function checkoutTries(t: TestGateway, m: TestMerchant, expiries: string[], order: { amount?: string; currency?: string } = {}): Promise<void> {
  const o = { number: `tries-${Math.random().toString(36).slice(2)}`, amount: order.amount ?? '10.00', currency: order.currency ?? 'EUR', description: 'Tries' };
  const opened = await t.postJson('/api/v1/session', {
    merchant_key: m.key, operation: 'purchase', methods: ['card'], order: o, success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
    customer: { name: 'John Doe', email: 'success@gmail.com' }, billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567' },
    hash: checkoutHash(m.password, o.number, o.amount, o.currency, o.description),
  });
  assert.equal(opened.status, 200, opened.text);
  for (const expiry of expiries) {
    const res = await fetch(`${t.baseUrl}${new URL(opened.body.redirect_url).pathname}/pay`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ method: 'card', card_number: '4111 1111 1111 1111', card_expiry: expiry, card_cvv: '123', card_holder: 'John Doe' }).toString(),
    });
    assert.ok(res.status < 500, `the page answered ${res.status}`);
    await res.arrayBuffer();
  }
}
