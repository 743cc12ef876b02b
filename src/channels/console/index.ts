/** The operator console's built files at /admin/ (a thin client of the admin API). */
import type { FastifyPluginAsync } from 'fastify';
import { registerConsole } from './static.ts';

export const consoleChannel: FastifyPluginAsync = async (app) => {
  await registerConsole(app);
};
