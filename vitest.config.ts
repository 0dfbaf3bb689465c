import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three lanes, by the test file's suffix (README.md, Development):
 * - `unit`: every other `*.test.ts` (property tests included). No real agent, no browser;
 *   `npm run test:unit`.
 * - `e2e`: `*.e2e.test.ts` (real `gemini`/`qwen` commands, the real gemini-cli-core client, the
 *   packed packages), `*.integration.test.ts` (the real client against a fake model) and
 *   `*.reliability.test.ts` (long and multi-process runs); `npm run test:e2e`.
 * - `browser`: `*.chromium.test.ts` (pages in headless Chromium, whatever else the file starts);
 *   `npm run test:browser`.
 * `npm test` runs all three.
 */
const lane = (...suffixes: string[]) =>
  suffixes.flatMap((suffix) => [`packages/*/src/**/*${suffix}`, `examples/*${suffix}`]);
const E2E = lane('.e2e.test.ts', '.integration.test.ts', '.reliability.test.ts');
const BROWSER = lane('.chromium.test.ts');

export default defineConfig({
  test: {
    // Importing @google/gemini-cli-core takes ~2 s; end-to-end tests start a real client.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The default output, then one plain closing line (scripts/summary-reporter.ts).
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: lane('.test.ts'),
          exclude: [...configDefaults.exclude, ...E2E, ...BROWSER],
          // Vitest's default is one worker fewer than the CPUs: one file at a time on two. Unit
          // files mostly wait on sockets and child processes, so at least two at a time.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // One process per worker for all its files, not one per file: each file used to load
          // its own copy of what it imports (the MCP SDK, undici, OpenTelemetry's exporters,
          // TypeScript: two thirds of the lane's CPU time). Unit tests restore what they change
          // (env, umask, OpenTelemetry's globals) and mock no module.
          isolate: false,
          // `npm test` runs the lanes one after the other, unit first (a project with its own
          // maxWorkers needs its own group).
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'e2e', include: E2E, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'browser', include: BROWSER, sequence: { groupOrder: 2 } } },
    ],
  },
});
