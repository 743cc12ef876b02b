/**
 * Where an S2S APM merchant sends its payer: the provider's page for a redirect method, otherwise the gateway's
 * payer page (/pay/{trans_id}) that shows the QR code, the payment details, the app wait, the code form or the
 * fields to fill. The QR method also hands over the QR content as Base64 in `qr_code`, so the merchant can
 * render the code itself (interface spec, QR method).
 */
import type { Payment } from '../../domain/model/payment.ts';
import { apmOf } from './details.ts';

export interface ApmRedirect {
  url: string;
  method: 'GET';
  params: Record<string, string>;
}

export function payerPageUrl(baseUrl: string, paymentId: string): string {
  return `${baseUrl}/pay/${paymentId}`;
}

/** What a PIX payin provider answered, handed on as it named it (qr_code_id, base_64_image, pix_copy_and_paste). */
function pixParams(action: { payload: string; image?: string; providerId?: string }): Record<string, string> {
  if (!action.image || !action.providerId) return {};
  return { qr_code_id: action.providerId, base_64_image: action.image, pix_copy_and_paste: action.payload };
}

/** The redirect of a payment waiting for its payer; undefined once it is decided. */
export function apmRedirect(baseUrl: string, p: Payment): ApmRedirect | undefined {
  const apm = apmOf(p);
  if (!apm || p.status !== 'redirect') return undefined;
  const action = apm.action;
  if (apm.stage === 'started' && action?.kind === 'redirect') return { url: action.url, method: 'GET', params: {} };
  const params: Record<string, string> = action?.kind === 'qr' ? { qr_code: Buffer.from(action.payload, 'utf8').toString('base64'), ...pixParams(action) } : {};
  return { url: payerPageUrl(baseUrl, p.id), method: 'GET', params };
}
