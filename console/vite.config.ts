// Builds the console into gateways/rest/ui/dist, which skills-rest embeds and
// serves at /ui/. `npm run dev` serves it with hot reload and forwards the API
// to a running skills-rest (SKILLS_REST, default http://127.0.0.1:8080).
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

const api = process.env.SKILLS_REST ?? "http://127.0.0.1:8080";

export default defineConfig({
  base: "/ui/",
  resolve: {
    alias: {
      // The client's sources: the console is built with them, never from
      // a published package.
      "@skillsd/client": fileURLToPath(new URL("../clients/typescript/src/index.ts", import.meta.url)),
    },
  },
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  build: {
    outDir: fileURLToPath(new URL("../gateways/rest/ui/dist", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // One CSS file and a few scripts: no inline assets (the page's CSP
    // allows only its own origin).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 200,
  },
  server: {
    proxy: { "/v1": api, "/healthz": api, "/openapi.json": api },
  },
});
