// The merchant portal's build (issue 30): served by the gateway at /portal (src/channels/console/static.ts).
// It shares the console's UI pieces, styles and generated API types (console/src), so it is built after it.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/portal/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Under the same CSP as the console nothing is inlined: every asset is a file of this origin.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
