import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/*.test.ts'],
    // Importing @google/gemini-cli-core takes ~2 s; end-to-end tests start a real client.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The default output, then one plain closing line (scripts/summary-reporter.ts).
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
});
