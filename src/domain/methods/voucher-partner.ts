/**
 * The voucher-partner method with signature (kind: vouchers via partner). The spec's table is the partner's
 * Initiate request: the merchant sends the payer's identity in parameters; the MID configuration, the order
 * and the gateway (which signs with the provider's private key) supply the rest.
 */
import { fromGateway, fromMid, fromRequest, onPage, required } from './params.ts';
import type { MethodEntry } from './types.ts';

export const VOUCHER_PARTNER: MethodEntry = {
  key: 'voucher-partner',
  label: 'Voucher',
  kind: 'vouchers via partner',
  specName: 'Voucher-partner method with signature (kind: vouchers via partner)',
  experience: 'redirect',
  operations: ['purchase'],
  channels: ['checkout', 's2s_apm'],
  params: [
    fromMid('PartnerId', 'Set in the MID configuration, per currency.'),
    required('PayerId', { note: 'Unique user id in the merchant system; sent together with PayerFirstName, PayerLastName and PayerBirthDate.' }),
    required('PayerFirstName', { note: 'Must be sent together with PayerId.' }),
    required('PayerLastName', { note: 'Must be sent together with PayerId.' }),
    required('PayerBirthDate', { type: 'date', note: 'Must be sent together with PayerId (YYYY-MM-DD).' }),
    fromGateway('PublicId', 'Unique transaction id in the partner system: the gateway\'s payment id.'),
    fromRequest('order.amount', 'required', { type: 'number' }),
    fromGateway('order.currency', 'The ISO 4217 numeric code (int) of order.currency, converted by the gateway.', { type: 'integer' }),
    fromGateway('PayType', '0 means payment.', { type: 'integer', values: ['0'] }),
    fromGateway('PayMethod', "2 means the partner's pay method.", { type: 'integer', values: ['2'] }),
    fromGateway('CallbackUrl', "The gateway's own notification address, notified when authorization completes.", { type: 'url' }),
    fromRequest('success_url', 'conditional', { type: 'url', note: "ReturnUrl: redirect on success. The partner is given the gateway's payer page, which asks the partner for the status and then sends the payer to success_url." }),
    fromRequest('error_url', 'conditional', { type: 'url', note: "DeclineUrl: redirect on failure, also after a data mismatch. The partner is given the gateway's payer page, which then sends the payer to error_url." }),
    fromRequest('cancel_url', 'conditional', { type: 'url', note: "CancelUrl: redirect on manual cancel. The partner is given the gateway's payer page, which then sends the payer to cancel_url." }),
    fromMid('Domain', 'Domain of the web application; MID configuration.', { requirement: 'conditional' }),
    fromMid('Language', 'RFC 3066 identifier; MID configuration.'),
    fromGateway('Signature', "Digital signature made with the provider's private key."),
    onPage('voucher_pin', 'Voucher PIN', { note: "The spec's payer-experience list names a voucher PIN field asked on the page; the member name is ours." }),
  ],
  notes: [
    'A data mismatch found by the partner shows the payer a pop-up and sends them to DeclineUrl; a later status call answers that the transaction does not exist.',
    'Asynchronous partner notifications arrive at the notification URL; the merchant should then call the status method.',
  ],
};
