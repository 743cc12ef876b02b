/**
 * Device wallets (keys applepay, googlepay) and their redirect payment-page variants (<prefix>-applepay,
 * <prefix>-googlepay). Wallet keys and certificates live in the admin panel (Wallets tab), not in requests.
 */
import { fromGateway, fromMid, fromPage, fromRequest } from './params.ts';
import type { MethodEntry, ParamSpec } from './types.ts';

const onPageRequest = (path: string, label: string): ParamSpec => fromRequest(path, 'required', { collectOnPage: true, label });

/** The request fields of the payment-page variants, from the spec's table. */
const PAGE_VARIANT_FIELDS: readonly ParamSpec[] = [
  fromRequest('order.amount', 'required', { type: 'number' }),
  fromRequest('order.currency', 'required'),
  fromRequest('order.number', 'required', { note: 'The public id: the unique merchant transaction id.' }),
  fromRequest('success_url', 'required', { type: 'url', note: 'Named callback URLs by the spec; required.' }),
  fromRequest('error_url', 'required', { type: 'url', note: 'Named callback URLs by the spec; required, and the page cannot ask for it.' }),
  fromGateway('wallet_type', 'The wallet type marker, only for the virtual flow; set by the gateway from the Wallets settings.'),
  fromPage('card_number', 'Entered on Checkout, card payments only.'),
  fromPage('card_expiry', 'Expiry month and year, entered on Checkout, card payments only.'),
  fromPage('card_cvv', 'Entered on Checkout, card payments only.'),
  onPageRequest('customer.name', 'Name'),
  onPageRequest('customer.email', 'E-mail'),
  onPageRequest('billing_address.address', 'Address'),
  onPageRequest('billing_address.country', 'Country'),
  onPageRequest('billing_address.city', 'City'),
  onPageRequest('billing_address.zip', 'Postcode'),
  fromRequest('billing_address.state', 'optional'),
  fromRequest('billing_address.phone', 'optional'),
  fromMid('project_subdomain', 'Admin panel.', { requirement: 'optional' }),
  fromPage('payer_ip', 'Collected from the browser.'),
];

const pageVariant = (brand: 'applepay' | 'googlepay', label: string): MethodEntry => ({
  key: `${brand}-page`,
  label,
  kind: 'wallet payment page',
  specName: `Wallet-token methods, redirect payment-page variant (<prefix>-${brand})`,
  experience: 'redirect',
  operations: ['purchase'],
  channels: ['checkout', 's2s_apm'],
  params: PAGE_VARIANT_FIELDS,
});

const WALLET_NOTES = [
  'Settings in the admin panel, Wallets tab. By default a wallet payment is virtual (card details not stored; DMS and recurring limited).',
  'With the decryption key set and a provider supporting card flow, the token is decrypted and the card stored: DMS capture, recurring, smart routing and cascading become available.',
  'On S2S the merchant obtains the wallet token and sends it in the SALE request; two-stage payments (auth, CAPTURE) apply to these brands.',
];

const wallet = (key: 'applepay' | 'googlepay', label: string, specName: string): MethodEntry => ({
  key,
  label,
  kind: 'device wallet',
  specName,
  experience: 'app_confirmation',
  operations: ['purchase'],
  channels: ['checkout', 's2s_apm'],
  params: [],
  notes: WALLET_NOTES,
});

export const WALLETS: readonly MethodEntry[] = [
  wallet('applepay', 'Apple Pay', 'Apple-style wallet (key applepay; device wallet A)'),
  wallet('googlepay', 'Google Pay', 'Google-style wallet (key googlepay; device wallet B)'),
  pageVariant('applepay', 'Apple Pay (payment page)'),
  pageVariant('googlepay', 'Google Pay (payment page)'),
];
