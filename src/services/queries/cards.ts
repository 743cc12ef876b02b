/** A vaulted card, opened for the one acquirer call that needs it (the schedule runner's charges). */
export { loadCard, type LoadedCard } from '../../store/card-vault.ts';
