/**
 * The one table of each package's layers, top to bottom, that the import-graph test holds the
 * source to (docs/architecture.md draws the same order for each package, and a test compares the
 * two). A layer is a folder of `src/` (`pipeline/`) or a single file (`gateway.ts`, or a file that
 * sits apart from its folder's layer, `protocols/model-routes.ts`); a file belongs to the most
 * specific entry that names it. A file may import its own layer and the layers below it; tests
 * (`*.test.ts`) may import anything of their package.
 *
 * Test helpers (`test-utils/`, `test-fixtures/`, `test-data/`) sit on top: they may use all of
 * their package and nothing else may use them. The docs leave them out (`TEST_ONLY_LAYERS`).
 */
import { packageOf } from './file-roles.js';

/** Each package's layers, top (may import every other) to bottom (imports none of them). */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  core: [
    'test-utils/',
    'test-fixtures/',
    'index.ts',
    'entries/',
    'geminiCliHost/',
    'services/',
    'telemetry/',
    'config/',
    'storage/',
    'utils/',
  ],
  gateway: [
    'test-utils/',
    'index.ts',
    'launch-entry.ts',
    'listen-gateway.ts',
    'running-gateway.ts',
    'gateway.ts',
    'gateway-routes.ts',
    'wiring/',
    'gateway-options.ts',
    'dashboard/',
    'pipeline/',
    'conversation/',
    'team/',
    'state/',
    'usage/',
    'upstream/',
    'protocols/',
    'body/',
    'server/',
    'errors.ts',
    'defaults.ts',
    'version.ts',
  ],
  cli: [
    'test-data/',
    'index.ts',
    'lib.ts',
    'program.ts',
    'commands/',
    'commands/listen-options.ts',
    'launch/clients/index.ts',
    'launch/clients/',
    'launch/clients/client-adapter.ts',
    'launch/run/',
    'launch/setup/',
    'launch/files/',
    'launch/',
    'telemetry-outfile/',
    'outputs/',
    'settings/',
    'input/',
    'render/',
    'replay/',
    'output-guard.ts',
    'option-parsers.ts',
    'docs-location.ts',
    'version.ts',
    'cli-error.ts',
    'exit-codes.ts',
    'cli-io.ts',
  ],
  // Helpers for tests: one layer (the import-graph test still finds its cycles).
  'test-support': ['./'],
};

/** Layers only tests use: in the table, not in the docs' drawings. */
export const TEST_ONLY_LAYERS = new Set(['test-utils/', 'test-fixtures/', 'test-data/']);

/**
 * Who may import `@google/gemini-cli-core` statically besides `core/src/geminiCliHost/` and
 * tests (an `import()` that loads it on demand is never refused). Importing it takes about 2 s and must resolve to the host's own copy (a peer
 * dependency), so the rest of toolmask names its types at most (`typeOnly`: erased from the built
 * code, nothing loads).
 */
export const GEMINI_CLI_CORE_IMPORTERS: ReadonlyArray<{
  file: string;
  typeOnly: boolean;
  reason: string;
}> = [
  {
    file: 'packages/core/src/services/maskingTypes.ts',
    typeOnly: true,
    reason: "the pass takes and gives the host's own `Content` and `Part` (re-exported as core's)",
  },
  {
    file: 'packages/core/src/services/previews/toolCall.ts',
    typeOnly: true,
    reason: "reads the call of a response from the host's `Content` history",
  },
  {
    file: 'packages/core/src/utils/tokenCalculation.ts',
    typeOnly: true,
    reason: "estimates the tokens of the host's `Part`s",
  },
  {
    file: 'packages/cli/src/replay/types.ts',
    typeOnly: true,
    reason: 'the replay engine replays histories of `Content` and `Part`, as core takes them',
  },
];

/** The layer entry of `file` (a path of the tree), or undefined where the table has none. */
export function layerOf(file: string): { name: string; index: number } | undefined {
  const where = packageOf(file);
  const layers = where?.inSource === undefined ? undefined : LAYERS[where.name];
  if (!where || where.inSource === undefined || !layers) return undefined;
  const inSource = where.inSource;
  let best: { name: string; index: number } | undefined;
  layers.forEach((name, index) => {
    const matches =
      name === './' || (name.endsWith('/') ? inSource.startsWith(name) : inSource === name);
    if (matches && (!best || name.length > best.name.length || best.name === './')) {
      best = { name, index };
    }
  });
  return best;
}
