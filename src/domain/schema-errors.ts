/**
 * Schema validation with D3 answers: TypeBox schemas (which also feed the OpenAPI description) are
 * compiled once; their errors become "<field.path>: <message>" entries with the platform's wording.
 * Pure (no I/O): channels validate requests with it and services validate stored settings (a MID's) with it.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { GatewayError, MESSAGES, type FieldError } from './errors.ts';
import { isIP } from 'node:net';
import { isCalendarDate, isEmail, isHttpUrl } from './methods/formats.ts';

FormatRegistry.Set('url', (v) => isHttpUrl(v));
FormatRegistry.Set('email', (v) => isEmail(v));
FormatRegistry.Set('date', (v) => isCalendarDate(v));
FormatRegistry.Set('ip', (v) => isIP(v) !== 0);

const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  url: MESSAGES.notUrl,
  email: MESSAGES.notEmail,
  date: MESSAGES.notDate,
  ip: MESSAGES.notIp,
};

/** A value of the wrong type: the type it should have been, in the platform's words (an object is an "array"). */
const EXPECTED_TYPE: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.String]: 'string', [ValueErrorType.Integer]: 'integer', [ValueErrorType.Number]: 'numeric',
  [ValueErrorType.Boolean]: 'bool', [ValueErrorType.Array]: 'array', [ValueErrorType.Object]: 'array',
};

/** TypeBox error kinds -> the platform's message texts. A schema's `errorMessage` option wins. */
function messageFor(error: ValueError): string {
  const schema = error.schema as TSchema & { errorMessage?: string; maxLength?: number; minLength?: number; minimum?: number; maximum?: number; format?: string };
  if (schema.errorMessage && error.type !== ValueErrorType.ObjectRequiredProperty) return schema.errorMessage;
  const expected = EXPECTED_TYPE[error.type];
  if (expected) return MESSAGES.notType(expected);
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return MESSAGES.blank;
    case ValueErrorType.StringMinLength:
      return error.value === '' ? MESSAGES.blank : MESSAGES.tooShort(schema.minLength ?? 0);
    case ValueErrorType.StringMaxLength:
      return MESSAGES.tooLong(schema.maxLength ?? 0);
    case ValueErrorType.StringFormat:
      return FORMAT_MESSAGES[schema.format ?? ''] ?? MESSAGES.notValid;
    case ValueErrorType.StringPattern:
      return MESSAGES.notValid;
    case ValueErrorType.Literal:
      return MESSAGES.notChoice;
    case ValueErrorType.ArrayMinItems:
      return MESSAGES.blank;
    case ValueErrorType.ArrayMaxItems:
      return `This collection should contain ${String((schema as { maxItems?: number }).maxItems)} elements or less.`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
      return MESSAGES.notInRange(schema.minimum ?? 0, schema.maximum ?? 0);
    default:
      return MESSAGES.notValid;
  }
}

/** JSON pointer "/order/items/0/price" -> "order.items[0].price" (the platform's field paths). */
export function fieldPath(pointer: string, prefix = ''): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = prefix;
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out || 'request';
}

/**
 * A value that fails "T or null" (a nullable field) fails T: its own errors name the field inside that is
 * wrong, where the union's error would only blame the whole value.
 */
function* explained(errors: Iterable<ValueError>): Generator<ValueError> {
  for (const error of errors) {
    const variants = (error.schema as { anyOf?: TSchema[] }).anyOf;
    const nonNull = variants?.map((v, i) => [v, i] as const).filter(([v]) => (v as { type?: unknown }).type !== 'null');
    const only = nonNull?.length === 1 ? error.errors[nonNull[0]![1]] : undefined;
    if (error.type === ValueErrorType.Union && error.value !== null && only) yield* explained(only);
    else yield error;
  }
}

/** One message per field, the first that TypeBox reports. */
export function collectErrors(check: TypeCheck<TSchema>, value: unknown, prefix = ''): FieldError[] {
  const seen = new Map<string, string>();
  for (const error of explained(check.Errors(value))) {
    const field = fieldPath(error.path, prefix);
    if (!seen.has(field)) seen.set(field, messageFor(error));
    if (seen.size >= 50) break;
  }
  return [...seen].map(([field, message]) => ({ field, message }));
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

export function compile(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** Validates, or throws the D3 "Request data is invalid." error listing every failing field. */
export function validate<T>(schema: TSchema, value: unknown): T {
  const check = compile(schema);
  if (check.Check(value)) return value as T;
  throw GatewayError.invalid(collectErrors(check, value));
}
