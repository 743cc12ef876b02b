/** The acquirers' side: their notifications for a MID, at /connectors/{connector}/{midId}/notify. */
import type { Channel } from '../plugin.ts';
import { registerConnectorRoutes } from './routes.ts';

export const connectorsChannel: Channel = async (app, { ctx }) => {
  registerConnectorRoutes(app, ctx);
};
