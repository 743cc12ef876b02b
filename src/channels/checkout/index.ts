/** The Checkout channel (JSON): sessions and follow-ups, hosted payment fields, card credit, recurring. */
import type { Channel } from '../plugin.ts';
import { registerCheckoutRoutes } from './routes.ts';
import { registerHostedFieldsRoutes } from './hosted-fields-routes.ts';
import { registerCardCreditRoutes } from './credit-routes.ts';
import { registerRecurringRoutes } from './recurring-routes.ts';

export const checkoutChannel: Channel = async (app, { ctx }) => {
  registerCheckoutRoutes(app, ctx);
  registerHostedFieldsRoutes(app, ctx);
  registerCardCreditRoutes(app, ctx);
  registerRecurringRoutes(app, ctx);
};
