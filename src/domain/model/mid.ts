/**
 * A MID (a merchant account at an acquirer, reached through one connector): pure, the store maps its rows onto
 * it. MidFields is THE field list of a MID: the admin API's create, change and view schemas, the service's input
 * and view, and the store's columns all derive from it (keys in snake_case outside, see snake-case.ts). Adding a
 * field touches this file, a migration and the console.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { SealedSecret } from '../secret.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Decimal = Type.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,8})?$', description: 'A decimal amount in major units, as a string (never a float).' });

export const PaymentMode = Type.Union([Type.Literal('SMS'), Type.Literal('DMS'), Type.Literal('SMS/DMS')], {
  description: 'SMS takes sales, DMS authorizations (captured later), SMS/DMS both (interface spec, Endpoints rule 7).',
});
export type PaymentMode = Static<typeof PaymentMode>;

const DailyCaps = Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Object({
  max_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'Payments per UTC day in this currency.' })),
  max_amount: Type.Optional(Type.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,8})?$', description: 'Amount per UTC day in this currency (major units, exact at its exponent).' })),
}, { additionalProperties: false, minProperties: 1 }), {
  maxProperties: 200,
  description: 'Daily volume caps by currency (issue 15): a payment counts from when it is sent to the MID; a declined or failed attempt gives its share back. A MID whose cap is reached is passed over (reason daily_cap). A currency not listed: no cap; null: none.',
});

/** The fields of a MID, in the order the admin API shows them; the constraints are what a write must meet. */
export const MidFields = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Defaults to the connector name.' }),
  /** Fixed at creation (a MID's credentials and settings are the connector's). */
  connector: Type.String({ minLength: 1, maxLength: 64, description: 'A connector of the registry (src/connectors/registry.ts).' }),
  paymentMode: PaymentMode,
  priority: Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Higher first; among equals, the older MID first.' }),
  enabled: Type.Boolean(),
  currencies: Nullable(Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), { maxItems: 200, uniqueItems: true, description: 'ISO 4217 codes the MID takes; null: any.' })),
  minAmount: Nullable(Decimal),
  maxAmount: Nullable(Decimal),
  dailyCaps: Nullable(DailyCaps),
  descriptor: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'What the cardholder\'s statement shows.' })),
  cardOnFileSupport: Type.Boolean({ description: 'Ask the connector for a card-on-file token, stored as recurring_token.' }),
  settings: Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100, description: 'The connector\'s own settings, validated by its settings schema.' }),
});
export type MidFields = Static<typeof MidFields>;

export type MidField = keyof MidFields;
export const MID_FIELDS = Object.keys(MidFields.properties) as MidField[];

/** What an operator may change after creation: every field but the connector. */
export type MidChangeable = Omit<MidFields, 'connector'>;
export const MID_CHANGEABLE = MID_FIELDS.filter((k): k is Exclude<MidField, 'connector'> => k !== 'connector');

export type Mid = MidFields & {
  id: string;
  merchantId: string;
  /** The connector's credentials, sealed (open with openMidCredentials); null: none set. */
  sealedCredentials: SealedSecret | null;
};

/** The MID's fields alone (without its id, merchant and credentials), in field-list order. */
export const midFieldsOf = (mid: MidFields): MidFields => Object.fromEntries(MID_FIELDS.map((k) => [k, mid[k]])) as MidFields;

/** A new MID's fields where the operator gave none. */
export const midDefaults = (connector: string): MidFields => ({
  name: connector,
  connector,
  paymentMode: 'SMS/DMS',
  priority: 0,
  enabled: true,
  currencies: null,
  minAmount: null,
  maxAmount: null,
  dailyCaps: null,
  descriptor: null,
  cardOnFileSupport: false,
  settings: {},
});
