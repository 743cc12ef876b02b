/**
 * The instant-payment provider request sets (<prefix>-pix-style methods, S2S) and their variants: a common
 * set of required fields, a fixed `type` per variant (and `market` = BR for the Pix QR variant), redirectUrl
 * for the offline variants, and each variant's extra fields.
 */
import { fromGateway, fromRequest, object, onPage, required } from './params.ts';
import type { MethodEntry, ParamSpec, PayerExperience } from './types.ts';

const COMMON_NOTE =
  'The spec lists the common fields as the request set; they are members of parameters.<key>, except amount and currency, which are the order\'s.';

/** Common fields, all required. `market` and `type` are declared per variant; fixed values the gateway fills in. */
const common = (market: ParamSpec, type: string): ParamSpec[] => [
  fromRequest('order.amount', 'required', { type: 'number', note: 'The set\'s amount (double): the order amount (S2S: order_amount).' }),
  required('expiryDate', { note: 'When the payment link expires.' }),
  required('callbackUrl', { type: 'url', note: 'Asynchronous notifications.' }),
  required('reference'),
  required('merchantType'),
  required('merchantName'),
  required('accountId', { note: 'The collection account.' }),
  market,
  fromGateway('type', `Fixed by the variant: ${type}. Filled in when absent; anything else is refused.`, { values: [type] }),
  fromRequest('order.currency', 'required', { note: 'The set\'s currency: the order currency (S2S: order_currency).' }),
];

const REDIRECT_URL = required('redirectUrl', { type: 'url', note: "Offline variants; applies when the provider's widget is used." });
const ANY_MARKET = required('market', { note: 'The spec fixes it only for the Pix QR variant.' });

interface Variant {
  key: string;
  label: string;
  specName: string;
  type: string;
  experience: PayerExperience;
  offline: boolean;
  extra: readonly ParamSpec[];
}

const AR_TAX_ID = { pattern: '^([0-9]{1,2}\\.?[0-9]{3}\\.?[0-9]{3}|[0-9]{2}-?[0-9]{8}-?[0-9])$', example: '20-12345678-9', note: 'DNI (7 or 8 digits) or CUIT (11 digits).' };
const CL_TAX_ID = { pattern: '^[0-9]{1,2}\\.?[0-9]{3}\\.?[0-9]{3}-?[0-9kK]$', example: '12.345.678-5', note: 'CI or RUN: 7 or 8 digits and a check digit (0-9 or K).' };
const CLIENT_NAME = required('clientname', { note: 'Full name of the originator.' });

const VARIANTS: readonly Variant[] = [
  { key: 'instant-transfer-ar', label: 'Bank transfer (Argentina)', specName: 'bank transfer Argentina, offline', type: 'OFFLINE', experience: 'redirect', offline: true, extra: [required('clientTaxId', AR_TAX_ID)] },
  { key: 'instant-transfer-py', label: 'Bank transfer (Paraguay)', specName: 'bank transfer Paraguay, offline', type: 'OFFLINE', experience: 'redirect', offline: true, extra: [CLIENT_NAME] },
  { key: 'instant-transfer-pe', label: 'Bank transfer (Peru)', specName: 'bank transfer Peru, offline', type: 'OFFLINE', experience: 'redirect', offline: true, extra: [CLIENT_NAME] },
  { key: 'instant-service-pe', label: 'Service payment (Peru)', specName: 'service payment Peru, offline', type: 'OFFLINE_SERVICE_PAYMENT', experience: 'redirect', offline: true, extra: [] },
  { key: 'instant-transfer-cl', label: 'Bank transfer (Chile)', specName: 'bank transfer Chile, offline', type: 'OFFLINE', experience: 'redirect', offline: true, extra: [required('clientTaxId', CL_TAX_ID)] },
  { key: 'instant-spei-mx', label: 'SPEI (Mexico)', specName: 'bank transfer Mexico, real time', type: 'SPEI', experience: 'details', offline: false, extra: [] },
  {
    key: 'instant-pull-ar',
    label: 'Debit pull (Argentina)',
    specName: 'debit pull Argentina',
    type: 'PULL',
    experience: 'extra_fields',
    offline: false,
    extra: [object('bankDetails', 'conditional', [onPage('cbu', 'CBU'), onPage('alias', 'Alias')], { collectOnPage: true, note: 'Collected on interaction.' })],
  },
  {
    key: 'instant-pull-pe',
    label: 'Mobile pull (Peru)',
    specName: 'mobile pull Peru',
    type: 'PULL',
    experience: 'otp',
    offline: false,
    extra: [object('bankDetails', 'conditional', [onPage('phoneNumber', 'Phone number'), onPage('otp', 'One-time code')], { collectOnPage: true, note: 'Collected on interaction.' })],
  },
];

const variantEntry = (v: Variant): MethodEntry => ({
  key: v.key,
  label: v.label,
  kind: 'instant payment',
  specName: `Instant-payment request set, variant: ${v.specName}`,
  experience: v.experience,
  operations: ['purchase'],
  channels: ['s2s_apm', 'checkout'],
  params: [...common(ANY_MARKET, v.type), ...(v.offline ? [REDIRECT_URL] : []), ...v.extra],
  notes: [COMMON_NOTE],
});

export const INSTANT_PAYMENT: readonly MethodEntry[] = [
  {
    key: 'pix',
    label: 'Pix',
    kind: 'instant payment',
    specName: 'Instant-payment request set, variant: QR/copy (Pix)',
    experience: 'qr',
    operations: ['purchase'],
    channels: ['s2s_apm', 'checkout'],
    params: common(fromGateway('market', 'Fixed by the variant: BR. Filled in when absent; anything else is refused.', { values: ['BR'] }), 'PIX'),
    notes: [COMMON_NOTE, 'No redirectUrl: the payer scans the QR or copies the code.'],
  },
  ...VARIANTS.map(variantEntry),
];
