// The operator console's build: served by the gateway at /admin (src/channels/console/static.ts).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Under the console's CSP nothing is inlined: every asset is a file of this origin.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
