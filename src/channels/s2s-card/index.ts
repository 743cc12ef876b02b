/** The S2S CARD channel (form API): one route per action of the action table, at /post and /v2/post. */
import type { Channel } from '../plugin.ts';
import { registerS2sCardRoutes } from './routes.ts';

export const s2sCardChannel: Channel = async (app, { ctx }) => {
  await registerS2sCardRoutes(app, ctx);
};
