/**
 * The payment reads channels and workers make (status lookups, the payer pages, the operator queue). Channels and
 * workers read through services, never a repository: these are the store's own queries, unchanged, named here
 * as the read side's interface.
 */
export {
  findPaymentsByOrder, findPaymentsNeedingOperator, findStalledPayments, getMerchantPayment, getPayment, listTransactions, needsOperatorOf,
} from '../../store/payments-repo.ts';
