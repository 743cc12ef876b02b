/**
 * camelCase inside, snake_case outside: the wire (admin API) and the table columns spell a field as its domain
 * name in snake_case, so one field list yields all three (paymentMode -> payment_mode).
 */

/** `paymentMode` -> `payment_mode`, at the type level. */
export type Snake<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<T>}`
  : S;

/** An object with its keys in snake_case, values unchanged. */
export type SnakeKeys<T> = { [K in keyof T as K extends string ? Snake<K> : never]: T[K] };

export const snakeName = <S extends string>(name: S): Snake<S> => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as Snake<S>;

/** The object with each key renamed to snake_case, in the same order. */
export function snakeKeys<T extends object>(value: T): SnakeKeys<T> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeName(k), v])) as SnakeKeys<T>;
}
