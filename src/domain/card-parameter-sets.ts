/**
 * The card parameter sets of interface.md ("Card method (key card): provider-specific sets" 1 to 6), by
 * their members: which sets a request's parameters use, so a connector can say which it could not send.
 */
export type CardParameterSet = 'instalments' | 'tax_document' | 'descriptor' | 'phone_and_shipping' | 'payer_and_payee_identity' | 'order_data';

const MEMBERS: Readonly<Record<CardParameterSet, readonly string[]>> = {
  instalments: ['bnrg_installm_def', 'bnrg_installm_months', 'bnrg_installm_plan'],
  tax_document: ['document_type', 'document_number', 'social_name', 'fiscal_country'],
  descriptor: ['descriptor'],
  phone_and_shipping: ['customer_phone', 'customer_telnocc', 'shipping_street1', 'shipping_city', 'shipping_state', 'shipping_postcode', 'shipping_country'],
  payer_and_payee_identity: [
    'payer_identity_type', 'payer_identity_id', 'payer_identity_country', 'payer_identity_exp_date', 'payer_nationality', 'payer_country_of_birth',
    'payee_first_name', 'payee_last_name', 'payee_middle_name', 'payee_address', 'payee_city', 'payee_state', 'payee_country', 'payee_zip',
    'payee_phone', 'payee_birth_date', 'payee_identity_type', 'payee_identity_id', 'payee_identity_country', 'payee_identity_exp_date',
    'payee_nationality', 'payee_country_of_birth',
  ],
  order_data: ['shipping', 'cart', 'marketPlace'],
};

export const CARD_PARAMETER_SETS = Object.keys(MEMBERS) as CardParameterSet[];

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** The sets a request's card parameters use (any member sent), in the spec's order. */
export function cardParameterSetsOf(parameters: Readonly<Record<string, unknown>> | undefined): CardParameterSet[] {
  if (!parameters) return [];
  return CARD_PARAMETER_SETS.filter((set) => MEMBERS[set].some((m) => present(parameters[m])));
}

/** The sets used by the request that a connector cannot send. */
export function unsentParameterSets(parameters: Readonly<Record<string, unknown>> | undefined, supported: ReadonlySet<CardParameterSet>): CardParameterSet[] {
  return cardParameterSetsOf(parameters).filter((s) => !supported.has(s));
}
