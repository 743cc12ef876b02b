/**
 * The S2S APM channel (form API) on the main port: /apm/post, the QR bank's callback, and the notifications of
 * `apm-provider` MIDs. Its own listener (S2S_APM_PORT) takes s2sApmListener instead: /post and /bank/callback.
 */
import type { Channel } from '../plugin.ts';
import { OWN_LISTENER_PATHS, registerS2sApmRoutes } from './routes.ts';
import { registerProviderNotifyRoutes } from './provider-notify-routes.ts';

export const s2sApmChannel: Channel = async (app, { ctx }) => {
  await registerS2sApmRoutes(app, ctx);
  registerProviderNotifyRoutes(app, ctx);
};

export const s2sApmListener: Channel = async (app, { ctx }) => {
  await registerS2sApmRoutes(app, ctx, OWN_LISTENER_PATHS);
};
