/**
 * The card method (key card) and its provider-specific parameter sets 1 to 6 (interface spec, "Card method
 * (key card): provider-specific sets"). Which set applies depends on the connector service, so all six live
 * in parameters.card; a set that the spec says is required applies as a whole once any of its members is sent.
 */
import { arrayOf, coded, conditional, inGroup, object, optional } from './params.ts';
import type { MethodEntry, ParamSpec } from './types.ts';

const SET_APPLIES = 'Required as a set: the set applies when the connector service uses it, which is known once any of its members is sent.';

const SET_1 = inGroup('Set 1, instalments', [
  conditional('bnrg_installm_def', { values: ['01', '00'], note: '01 one month deferral, 00 no initial deferral.' }),
  conditional('bnrg_installm_months', { pattern: '^(0[1-9]|[1-9][0-9])$', example: '03', note: 'Number of monthly payments, zero-padded to 2 digits.' }),
  conditional('bnrg_installm_plan', { values: ['03', '05', '07'], note: '03 no interest, 05 with interest, 07 defer only initial.' }),
]);

const SET_2 = inGroup('Set 2, tax document', [
  conditional('document_type', { values: ['cpf'] }),
  conditional('document_number', { note: "Client's document number." }),
  conditional('social_name', { note: "Client's social name." }),
  conditional('fiscal_country', { minLength: 2, maxLength: 2, format: 'country', note: 'Alpha-2 code of the tax country.' }),
]);

const SET_3 = inGroup('Set 3, descriptor', [optional('descriptor', { maxLength: 20 })]);

const SET_4 = inGroup('Set 4, customer and shipping', [
  optional('customer_phone'),
  optional('customer_telnocc', { note: 'Country phone code.' }),
  optional('shipping_street1'),
  optional('shipping_city'),
  optional('shipping_state'),
  optional('shipping_postcode', { shape: 'N', maxLength: 9, note: 'At most 9 digits.' }),
  optional('shipping_country', { shape: 'N', minLength: 3, maxLength: 3, note: '3-digit (ISO 3166-1 numeric) code.' }),
]);

const SET_5_NOTE = 'For the debit operation.';
const SET_5 = inGroup('Set 5, debit sender and receiver', [
  ...['payer_identity_type', 'payer_identity_id', 'payer_identity_country', 'payer_identity_exp_date', 'payer_nationality', 'payer_country_of_birth'],
  ...['payee_first_name', 'payee_last_name', 'payee_middle_name', 'payee_address', 'payee_city', 'payee_state', 'payee_country', 'payee_zip', 'payee_phone'],
  ...['payee_birth_date', 'payee_identity_type', 'payee_identity_id', 'payee_identity_country', 'payee_identity_exp_date', 'payee_nationality', 'payee_country_of_birth'],
].map((name) => optional(name, { note: SET_5_NOTE })));

const SHIPPING: readonly ParamSpec[] = [
  coded('street1', 'AN100', 'C'),
  coded('street2', 'AN100', 'C'),
  coded('houseNumber1', 'AN100', 'O'),
  coded('houseNumber2', 'AN100', 'O'),
  coded('city', 'AN80', 'C'),
  coded('state', 'AN50', 'C'),
  coded('postcode', 'AN16', 'C'),
  coded('country', 'A2', 'C', { format: 'country', note: 'ISO 3166-1 alpha-2, [A-Za-z]{2}; C in the spec, condition not stated: checked only when sent.' }),
  coded('method', 'AN30', 'C'),
  coded('cost', 'N13', 'C'),
  coded('comment', 'AN160', 'C'),
  coded('expectedDate', 'AN10', 'O'),
  coded('logisticsProvider', 'AN255', 'O'),
  coded('trackingNumber', 'AN255', 'O'),
  coded('returnTrackingNumber', 'AN255', 'O'),
  coded('normalized', 'AN255', 'O'),
  coded('validationStatus', 'AN255', 'O'),
  coded('warehouse', 'AN100', 'O'),
  coded('preference', 'AN21', 'O'),
  coded('middleName', 'AN', 'O'),
  coded('companyName', 'AN60', 'O'),
  coded('phone', 'AN25', 'O'),
  coded('workPhone', 'AN25', 'O'),
  coded('mobile', 'AN25', 'O'),
  coded('email', 'AN128', 'O'),
  coded('type', 'AN8', 'O', { values: ['return', 'shipment'] }),
];

const RECIPIENT: readonly ParamSpec[] = [
  coded('salutation', 'AN5', 'O'),
  coded('firstName', 'AN48', 'O'),
  coded('middleName', 'AN50', 'O'),
  coded('lastName', 'AN48', 'O'),
  coded('apartment', 'AN100', 'O'),
  coded('street', 'AN100', 'O'),
  coded('address', 'AN100', 'O'),
  coded('city', 'AN80', 'O'),
  coded('state', 'AN50', 'O'),
  coded('postcode', 'AN16', 'O'),
  optional('country', { format: 'country-or-numeric', note: 'A2 or N3: alpha-2 or 3-digit numeric ISO 3166-1 code.' }),
  coded('phone', 'N25', 'O'),
  coded('email', 'AN128', 'O'),
];

const CART_ITEM: readonly ParamSpec[] = [
  coded('name', 'AN255', 'C'),
  coded('merchantItemId', 'AN255', 'C'),
  coded('quantity', 'N5', 'C'),
  coded('type', 'AN255', 'C'),
  coded('sku', 'AN255', 'O'),
  coded('currency', 'A3', 'C'),
  coded('description', 'AN2048', 'C'),
  coded('commodityCode', 'N8', 'O'),
  coded('commodityDescription', 'AN50', 'O'),
  coded('originalPrice', 'AN255', 'O', { note: 'Excluding tax and discount.' }),
  coded('price', 'N13', 'C', { note: 'Including tax and discount; C in the spec, condition not stated: checked only when sent.' }),
  coded('totalAmount', 'N13', 'C', { note: 'Includes quantity; C in the spec, condition not stated: checked only when sent.' }),
  coded('taxAmount', 'N13', 'C', { note: 'Per item; C in the spec, condition not stated: checked only when sent.' }),
  coded('totalTaxAmount', 'N13', 'C'),
  coded('tax', 'AN6', 'C', { note: 'Percentage; C in the spec, condition not stated: checked only when sent.' }),
  coded('taxCategory', 'AN2', 'C'),
  coded('shipping', 'N10.N2', 'C'),
  coded('discount', 'N13', 'C', { note: 'Percentage; C in the spec, condition not stated: checked only when sent.' }),
  coded('giftMessage', 'AN255', 'O'),
  coded('shippingMethod', 'AN255', 'O'),
  coded('shippingInstructions', 'AN255', 'O'),
  coded('shippingTrackingNumber', 'AN255', 'O'),
  optional('quantityUnit', { values: ['M', 'CM', 'KG', 'G', 'COUNT'] }),
  optional('productUrl', { type: 'url' }),
  optional('imageUrl', { type: 'url' }),
  coded('totalDiscountAmount', 'N10.N2', 'O'),
  coded('productCode', 'AN30', 'O'),
  coded('partNumber', 'AN30', 'O'),
  coded('itemNumber', 'N3', 'O'),
  coded('vatReferenceNumber', 'AN30', 'O'),
  coded('sellerId', 'AN255', 'O'),
  coded('deliveryDate', 'AN10', 'O'),
  object('recipient', 'optional', RECIPIENT),
];

const CART_PAYMENT: readonly ParamSpec[] = [
  coded('name', 'AN255', 'O'),
  coded('type', 'AN255', 'O', { note: 'For example GIFTCARD or PROMOTION (not a closed list).' }),
  coded('amount', 'N10.N2', 'O'),
  coded('currency', 'A3', 'O'),
  coded('status', 'AN255', 'O', { note: 'For example pending, authorized, captured (not a closed list).' }),
  coded('brand', 'AN255', 'O'),
  optional('primary', { type: 'boolean' }),
];

const SET_6 = inGroup('Set 6, nested order data', [
  object('shipping', 'optional', SHIPPING),
  object('cart', 'optional', [arrayOf('items', 'optional', CART_ITEM), arrayOf('payments', 'optional', CART_PAYMENT)]),
  object('marketPlace', 'optional', [arrayOf('sellers', 'optional', [coded('id', 'AN255', 'O'), coded('amount', 'N13', 'O')])]),
]);

export const CARD: MethodEntry = {
  key: 'card',
  label: 'Card',
  kind: 'card',
  specName: 'Card method (key card), provider-specific sets 1 to 6',
  experience: 'card_form',
  operations: ['purchase', 'debit', 'credit'],
  channels: ['checkout', 's2s_card'],
  params: [...SET_1, ...SET_2, ...SET_3, ...SET_4, ...SET_5, ...SET_6],
  rules: [
    { kind: 'allOrNone', members: ['bnrg_installm_def', 'bnrg_installm_months', 'bnrg_installm_plan'], note: `Set 1: all three are required. ${SET_APPLIES}` },
    { kind: 'allOrNone', members: ['document_type', 'document_number', 'social_name', 'fiscal_country'], note: `Set 2: all four are required. ${SET_APPLIES}` },
  ],
  notes: ['The set that applies depends on the connector service; extra parameters are sent in parameters.card.'],
};
