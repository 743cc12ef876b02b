/** The merchant and MID reads channels and workers make (see payments.ts for why they are here). */
export { findMerchantById, findMerchantByKey, listMids } from '../../store/merchants-repo.ts';
export { findMerchantRecord, listMerchantRecords, type MerchantRecord } from '../../store/merchant-admin-repo.ts';
