/**
 * Where a payer goes when a card payment needs them: the gateway's own ACS page for a 3-D Secure challenge,
 * the provider page for a redirect (decisions D8), or the page a real acquirer asked for.
 */
import type { Payment } from '../../domain/model/payment.ts';

export interface PayerRedirect {
  url: string;
  method: 'POST' | 'GET';
  /** Empty when the page needs no parameters (the S2S answer then carries `[]`, as the platform does). */
  params: Record<string, string>;
}

/** The redirect of a payment in status 3ds or redirect; undefined in any other status. */
export function payerRedirect(baseUrl: string, payment: Payment): PayerRedirect | undefined {
  // A real acquirer's own page (its ACS, its provider page), handed on as the acquirer gave it; its return
  // address is ours (/connectors/return/{payment}), from where the payer goes on to the merchant.
  const page = payment.details.payerPage as PayerRedirect | undefined;
  if (page && (payment.status === '3ds' || payment.status === 'redirect')) return { url: page.url, method: page.method, params: page.params ?? {} };
  if (payment.status === '3ds') {
    return {
      url: `${baseUrl}/sandbox/acs/${payment.id}`,
      method: 'POST',
      // The classic 3-D Secure trio: MD names the transaction, PaReq is opaque to the merchant, TermUrl is where
      // the ACS posts back (the gateway, which then sends the payer on to term_url_3ds).
      params: {
        PaReq: Buffer.from(JSON.stringify({ id: payment.id, amount: payment.amount.toString(), currency: payment.currency })).toString('base64'),
        MD: payment.id,
        TermUrl: `${baseUrl}/sandbox/acs/${payment.id}/complete`,
      },
    };
  }
  if (payment.status === 'redirect') return { url: `${baseUrl}/sandbox/provider/${payment.id}`, method: 'GET', params: {} };
  return undefined;
}
