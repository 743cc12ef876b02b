/**
 * The schedule runner's batch statements: lock the due chains, insert their claims, mark them authorizing,
 * record the outcomes, and take over or expire charges a dead runner left. Each is one statement over the whole
 * batch (the runner's speed); the worker reaches them through services, not the repository.
 */
export {
  findExpiredCharges, insertClaims, lockDueChains, markAuthorizing, recordOutcomes, takeOverCharge, type Claim, type DueChain, type OutboxRow,
} from '../../store/schedules-repo.ts';
