/**
 * OpenAPI pieces shared by the configuration routes (MIDs, settings, wallets): the merchant path parameters
 * (their D3 error answers are in errors.ts).
 */
import { Type } from '@sinclair/typebox';

export const MerchantParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The merchant\'s id (a UUID).' }) });
export const MidParams = Type.Object({
  id: Type.String({ maxLength: 1024, description: 'The merchant\'s id (a UUID).' }),
  midId: Type.String({ maxLength: 1024, description: 'The MID\'s id (a UUID).' }),
});
