import { defineConfig } from 'vite';

// Built with `vite build dashboard`: root is this folder, output goes to dashboard/dist and
// the gateway serves it under /dashboard/. Everything is bundled; nothing is fetched from the
// internet at run time.
export default defineConfig({
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
  },
});
