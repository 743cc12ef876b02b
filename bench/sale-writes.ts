/**
 * The S2S SALE's database writes alone, for `npm run bench`: the two writes of one real SALE (the payment's insert
 * with its transaction, attempt and risk screen; the outcome's update with its transaction, attempt, risk counters
 * and ledger entries) are recorded from the store's payment-writes channel, and each request replays them with
 * fresh ids through the same store functions, so the same statements and the same group commit. Nothing else of a
 * SALE runs: no form parsing, validation, hash check, merchant lookup, risk screen, routing, connector or reply
 * building. Its rate, beside the SALE's, tells what the database writes cost from what the gateway's own work does.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Database } from '../src/store/database.ts';
import { insertPaymentWithTransaction, updatePaymentAndTransaction, type PaymentWrite } from '../src/store/payments-repo.ts';
import { newId } from '../src/domain/ids.ts';

type InsertArgs = Extract<PaymentWrite, { kind: 'insert' }>['args'];
type UpdateArgs = Extract<PaymentWrite, { kind: 'update' }>['args'];
type Path = (string | number)[];

/** Records the payment writes made until `stop`; answers the first insert and the first update. */
export function recordSaleWrites(): { stop(): { insert: InsertArgs; update: UpdateArgs } } {
  const seen: { insert?: InsertArgs; update?: UpdateArgs } = {};
  const onWrite = (message: unknown) => {
    const write = message as PaymentWrite;
    if (write.kind === 'insert') seen.insert ??= write.args;
    else seen.update ??= write.args;
  };
  subscribe('portcullis:payment-writes', onWrite);
  return {
    stop() {
      unsubscribe('portcullis:payment-writes', onWrite);
      if (!seen.insert || !seen.update) throw new Error('no SALE was written while recording');
      return { insert: seen.insert, update: seen.update };
    },
  };
}

/** The paths in `value` of the strings that hold one of `ids`. */
function pathsOf(value: unknown, ids: readonly string[], at: Path = [], found: Path[] = []): Path[] {
  if (typeof value === 'string') {
    if (ids.some((id) => value.includes(id))) found.push(at);
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, member] of Object.entries(value)) pathsOf(member, ids, [...at, Array.isArray(value) ? Number(key) : key], found);
  }
  return found;
}

/**
 * A replay of the recorded writes, answering the payment's final status. The arguments are copied on write: only
 * the objects on the way to an id are copied (shallow), the rest is shared, as no write changes its arguments.
 */
export function saleWritesReplay(db: Database, recorded: { insert: InsertArgs; update: UpdateArgs }): () => Promise<string> {
  const [, payment, transaction] = recorded.insert;
  const ids = [payment.id, transaction.id];
  const args = [recorded.insert.slice(1), recorded.update.slice(1)];
  const paths = pathsOf(args, ids);
  const withFreshIds = (): unknown[][] => {
    const fresh = ids.map(() => newId());
    const copies = new Map<object, Record<string | number, unknown>>();
    const copyOf = (o: object) => {
      let copy = copies.get(o);
      if (!copy) copies.set(o, (copy = (Array.isArray(o) ? o.slice() : Object.assign({}, o)) as Record<string | number, unknown>));
      return copy;
    };
    const root = copyOf(args);
    for (const path of paths) {
      let original = args as unknown as Record<string | number, unknown>;
      let copy = root;
      for (const key of path.slice(0, -1)) {
        original = original[key] as Record<string | number, unknown>;
        copy = (copy[key] = copyOf(original)) as Record<string | number, unknown>;
      }
      const last = path[path.length - 1]!;
      copy[last] = ids.reduce((text, id, i) => text.split(id).join(fresh[i]!), original[last] as string);
    }
    return root as unknown as unknown[][];
  };
  return async () => {
    const [insert, update] = withFreshIds() as [InsertArgs extends [unknown, ...infer R] ? R : never, UpdateArgs extends [unknown, ...infer R] ? R : never];
    await insertPaymentWithTransaction(db, ...insert);
    const [id, expect, patch, now, result, , entries] = update;
    const settled = await updatePaymentAndTransaction(db, id, expect, patch, now, result, undefined, entries);
    if (!settled) throw new Error('the replayed outcome found no payment to update');
    return settled.status;
  };
}
