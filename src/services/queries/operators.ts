/** The operator reads of the admin API's authentication and user routes (see payments.ts for why they are here). */
export {
  findOperatorByTokenDigest, findOperatorUser, listOperatorTokens, listOperatorUsers, type Operator, type OperatorToken, type OperatorUser,
} from '../../store/operators-repo.ts';
export { findConsoleSession, type ConsoleSession } from '../../store/console-sessions-repo.ts';
