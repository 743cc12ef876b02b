/**
 * The sandbox's public test card numbers (decisions D8). The sandbox acquirer charges them
 * (src/sandbox/acquirer/test-cards.ts) and every live MID refuses them (services/connector-access.ts): a rule
 * both sides read, so it lives below both.
 */
export const SUCCESS_CARD = '4111111111111111';
export const PAYOUT_CARD = '4601541833776519';
