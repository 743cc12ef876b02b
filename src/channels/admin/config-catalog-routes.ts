/**
 * What the configuration forms offer (issue 11; the console builds its MID, Protocol Mapping and Wallets
 * screens from these): the connectors a MID may name, with their settings and credentials schemas, and the
 * choices of the settings (domain/protocol-mapping.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import {
  FEE_CALCULATION_METHODS, LINK_TARGETS, MOBILE_MONEY_FEE_BEARERS, OPTIONAL_FIELDS, REQUIRABLE_PAYER_FIELDS, RETURN_PARAMETERS,
} from '../../domain/protocol-mapping.ts';
import { ADMIN_TAG, requirePermission } from './operator-auth.ts';
import { withErrors } from './errors.ts';
import { APM_PROVIDER_SPEC } from '../../connectors/apm-provider/schemas.ts';

const JsonSchema = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'JSON Schema; null: flat values of the connector\'s choosing.' });

const ConnectorList = Type.Object({
  connectors: Type.Array(Type.Object({ name: Type.String(), settings_schema: JsonSchema, credentials_schema: JsonSchema })),
}, { examples: [{ connectors: [{ name: 'sandbox-card', settings_schema: null, credentials_schema: null }] }] });

const ProtocolMapping = Type.Object({
  optional_fields: Type.Array(Type.Object({ name: Type.String(), wire: Type.Array(Type.String()), note: Type.String() })),
  return_params: Type.Array(Type.String()),
  payer_fields: Type.Array(Type.String()),
  link_targets: Type.Array(Type.String()),
  mobile_money_fee_bearers: Type.Array(Type.String()),
  fee_calculation_methods: Type.Array(Type.String()),
}, { examples: [{ optional_fields: [{ name: 'rrn', wire: ['RRN', 'ARN'], note: 'Acquirer references.' }], return_params: [...RETURN_PARAMETERS], payer_fields: ['payer_zip'], link_targets: [...LINK_TARGETS], mobile_money_fee_bearers: [...MOBILE_MONEY_FEE_BEARERS], fee_calculation_methods: [...FEE_CALCULATION_METHODS] }] });

/** A schema as JSON, without TypeBox's symbol-keyed markers. */
const asJsonSchema = (schema: unknown): Record<string, unknown> | null =>
  schema && typeof schema === 'object' ? (JSON.parse(JSON.stringify(schema)) as Record<string, unknown>) : null;

export function registerAdminConfigCatalogRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/connectors', {
    onRequest: requirePermission('mids.read'),
    schema: { ...ADMIN_TAG, summary: 'Connectors a MID may name, with the settings and credentials each takes', response: withErrors({ 200: ConnectorList }) },
  }, async () => ({
    connectors: [...ctx.connectors.values(), APM_PROVIDER_SPEC].map((c) => ({ name: c.name, settings_schema: asJsonSchema(c.settingsSchema), credentials_schema: asJsonSchema(c.credentialsSchema) })),
  }));

  app.get('/protocol-mapping', {
    onRequest: requirePermission('merchants.read'),
    schema: { ...ADMIN_TAG, summary: 'The choices of a merchant\'s settings: optional fields, return parameters, payer fields, link targets', response: withErrors({ 200: ProtocolMapping }) },
  }, async () => ({
    optional_fields: OPTIONAL_FIELDS.map((f) => ({ name: f.name, wire: [...f.wire], note: f.note })),
    return_params: [...RETURN_PARAMETERS],
    payer_fields: [...REQUIRABLE_PAYER_FIELDS],
    link_targets: [...LINK_TARGETS],
    mobile_money_fee_bearers: [...MOBILE_MONEY_FEE_BEARERS],
    fee_calculation_methods: [...FEE_CALCULATION_METHODS],
  }));
}
