/** The admin API's query parameters with their allowed values, extracted from its OpenAPI description at build time. */
import params from '../generated/query-params.json';

export interface QueryParam {
  name: string;
  values?: string[];
  description?: string;
}

export function queryParamsOf(path: string): QueryParam[] {
  return (params as unknown as Record<string, QueryParam[]>)[path] ?? [];
}

import bodyEnums from '../generated/body-enums.json';

/** The allowed values of an enumerated body field, e.g. enumOf('PUT /admin/v1/merchants/{id}/wallets', 'google_pay.supported_networks'). */
export function bodyEnumOf(route: string, field: string): string[] {
  return ((bodyEnums as unknown as Record<string, Record<string, string[]>>)[route] ?? {})[field] ?? [];
}
