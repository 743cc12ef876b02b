/** The callback outbox as the admin API lists it (see payments.ts for why it is here). */
import { pageSize } from '../../domain/page-size.ts';

export { listCallbacks, type CallbackFilter, type CallbackWithAttempts } from '../../store/callbacks-repo.ts';

/** A page of callbacks (the admin API's and the portal's lists): 1 to 1000, 100 when not given. */
export const MAX_CALLBACK_PAGE = 1000;
export const DEFAULT_CALLBACK_PAGE = 100;

/** `limit` of a callback list (query strings are strings), or the D3 400 on `limit` every list answers outside its range. */
export function callbackPageSize(limit: string | undefined): number {
  return pageSize(limit, MAX_CALLBACK_PAGE) ?? DEFAULT_CALLBACK_PAGE;
}
