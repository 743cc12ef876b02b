/**
 * The portal's API: the console's typed client (console/src/api/client.ts: the session cookie travels by itself, the
 * CSRF token goes in a header on every write), with the /portal/v1 paths of the same generated types.
 */
import type { Answer, QueryOf } from '../../console/src/api/client';

export { ApiError, call, msSinceLastCall, setCsrfToken, whenSignedOut } from '../../console/src/api/client';

export type Session = Answer<'/portal/v1/session', 'get'>;
export type Permission = Session['permissions'][number];
export type Payment = Answer<'/portal/v1/payments', 'get'>['payments'][number];
export type PaymentDetail = Answer<'/portal/v1/payments/{id}', 'get'>;
export type PaymentQuery = QueryOf<'/portal/v1/payments', 'get'>;
export type Callback = Answer<'/portal/v1/callbacks', 'get'>['callbacks'][number];
export type TeamUser = Answer<'/portal/v1/team', 'get'>['users'][number];
export type Figures = Answer<'/portal/v1/figures', 'get'>;
export type MerchantMoney = Answer<'/portal/v1/money', 'get'>['merchants'][number];
export type Statement = Answer<'/portal/v1/statements', 'get'>['statements'][number];
export type DisputeDetail = Answer<'/portal/v1/disputes/{id}', 'get'>;
