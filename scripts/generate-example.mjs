#!/usr/bin/env node
/**
 * Generates the built-in example session of `toolmask replay`:
 * packages/cli/examples/long-session.json, a JSON array of Content (gemini-cli's history format).
 *
 * A person works through five tasks on a small TypeScript order service in one long gemini-cli
 * session: a failing CI run, a pagination feature, a slow noisy build, a broken page shown in a
 * screenshot, and a flaky integration test. The agent runs shell commands (logs with exit codes and
 * errors), reads files, greps, edits, asks the user once (`ask_user`, a tool no strategy masks)
 * and reads one PNG (an image part). A few outputs are very large (a verbose test run, container
 * logs, a lock file, a webpack stats dump).
 *
 * Deterministic: a seeded PRNG and a fixed clock, so the file only changes when this script does.
 *   node scripts/generate-example.mjs           write the file
 *   node scripts/generate-example.mjs --check   exit 1 if the file is not what the script makes
 */
import { deflateSync } from 'node:zlib';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUTPUT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'packages',
  'cli',
  'examples',
  'long-session.json',
);
const ROOT = '/home/dev/orders-service';
const START_MS = Date.UTC(2026, 0, 12, 9, 0, 0);

// ---------------------------------------------------------------- deterministic randomness

function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(20260112);
const int = (min, max) => min + Math.floor(random() * (max - min + 1));
const pick = (list) => list[Math.floor(random() * list.length)];
const hex = (length) => Array.from({ length }, () => '0123456789abcdef'[int(0, 15)]).join('');
const range = (count, make) => Array.from({ length: count }, (_, index) => make(index));

// ---------------------------------------------------------------- project vocabulary

const MODULES = ['orders', 'payments', 'inventory', 'customers', 'shipping', 'invoices', 'auth'];
const LAYERS = ['handler', 'service', 'repository', 'schema', 'mapper', 'validator'];
const VERBS = ['create', 'update', 'find', 'list', 'cancel', 'refund', 'reserve', 'validate'];
const NOUNS = ['Order', 'Payment', 'LineItem', 'Customer', 'Shipment', 'Invoice', 'Address'];
const sourceFiles = MODULES.flatMap((module) =>
  LAYERS.map((layer) => `src/${module}/${module}.${layer}.ts`),
);
const testFiles = MODULES.flatMap((module) =>
  ['handler', 'service', 'repository'].map((layer) => `src/${module}/${module}.${layer}.test.ts`),
);

function functionName() {
  return `${pick(VERBS)}${pick(NOUNS)}${pick(['', 'ById', 'Batch', 'ForCustomer', 'Draft'])}`;
}

function typescriptSource(path, lines) {
  const module = path.split('/')[1] ?? 'orders';
  const noun = pick(NOUNS);
  const out = [
    `import { z } from 'zod';`,
    `import type { Db } from '../db/client.js';`,
    `import { logger } from '../observability/logger.js';`,
    `import { ${noun}Schema, type ${noun} } from './${module}.schema.js';`,
    '',
  ];
  while (out.length < lines) {
    const name = functionName();
    out.push(
      `/** ${name}: ${pick(['validates input, then writes one row', 'reads through the cache', 'runs in one transaction', 'emits an audit event'])}. */`,
      `export async function ${name}(db: Db, input: unknown): Promise<${noun}> {`,
      `  const parsed = ${noun}Schema.parse(input);`,
      `  const started = performance.now();`,
      `  const row = await db.${pick(['one', 'maybeOne', 'transaction'])}(\`SELECT * FROM ${module} WHERE id = $1\`, [parsed.id]);`,
      `  if (!row) throw new NotFoundError('${module}', parsed.id);`,
      `  logger.debug({ id: parsed.id, ms: performance.now() - started }, '${name}');`,
      `  return map${noun}(row);`,
      `}`,
      '',
    );
  }
  return out.slice(0, lines).join('\n');
}

// ---------------------------------------------------------------- tool output formats

/** gemini-cli's shell tool: Output, Error, Exit Code (when not 0), Process Group PGID. */
function shellOutput(output, { exitCode = 0, error } = {}) {
  const sections = [`Output: ${output || '(empty)'}`];
  if (error) sections.push(`Error: ${error}`);
  if (exitCode !== 0) sections.push(`Exit Code: ${exitCode}`);
  sections.push(`Process Group PGID: ${int(20000, 64000)}`);
  return sections.join('\n');
}

function jestRun({ failing = [], verbose = false, suites = testFiles }) {
  const lines = [
    `> orders-service@2.4.1 test`,
    `> vitest run${verbose ? ' --reporter=verbose' : ''}`,
    '',
  ];
  let passed = 0;
  let failed = 0;
  for (const file of suites) {
    const fails = failing.filter((entry) => entry.file === file);
    const count = int(6, 18);
    lines.push(
      ` ${fails.length ? '❯' : '✓'} ${file} (${count} tests${fails.length ? ` | ${fails.length} failed` : ''}) ${int(12, 900)}ms`,
    );
    if (verbose) {
      for (let index = 0; index < count; index++) {
        const fail = fails[index];
        const name = `${pick(VERBS)} ${pick(NOUNS).toLowerCase()} ${pick(['with valid input', 'when missing', 'twice', 'with a stale cache', 'under load', 'after refund'])}`;
        lines.push(`   ${fail ? '×' : '✓'} ${fail ? fail.name : name} ${int(1, 120)}ms`);
      }
    }
    passed += count - fails.length;
    failed += fails.length;
  }
  for (const fail of failing) {
    lines.push(
      '',
      `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failing.length} ⎯⎯⎯⎯⎯⎯⎯`,
      '',
      ` FAIL  ${fail.file} > ${fail.name}`,
      `AssertionError: ${fail.message}`,
      '',
      `- Expected`,
      `+ Received`,
      '',
      ...range(
        int(4, 9),
        () =>
          `  ${pick(['-', '+', ' '])}   "${pick(['status', 'total', 'items', 'cursor', 'currency'])}": ${pick(['"PAID"', '"PENDING"', '1299', 'null', '[]', '"EUR"'])},`,
      ),
      '',
      ` ❯ ${fail.file}:${int(20, 200)}:${int(5, 30)}`,
      ...range(
        int(3, 6),
        () =>
          `    ${int(10, 300)}|     ${pick(['expect(result).toEqual(expected);', 'await service.' + functionName() + '(db, input);', 'const res = await app.inject({ method: "GET", url });'])}`,
      ),
    );
  }
  lines.push(
    '',
    ` Test Files  ${failing.length ? `${new Set(failing.map((f) => f.file)).size} failed | ` : ''}${suites.length - new Set(failing.map((f) => f.file)).size} passed (${suites.length})`,
    `      Tests  ${failed ? `${failed} failed | ` : ''}${passed} passed (${passed + failed})`,
    `   Start at  09:${String(int(10, 59)).padStart(2, '0')}:${String(int(10, 59)).padStart(2, '0')}`,
    `   Duration  ${int(4, 40)}.${int(10, 99)}s (transform ${int(200, 900)}ms, setup 0ms, collect ${int(1, 9)}.${int(10, 99)}s, tests ${int(2, 20)}.${int(10, 99)}s)`,
  );
  return lines.join('\n');
}

function tscErrors(count) {
  return range(count, () => {
    const file = pick(sourceFiles);
    return `${file}(${int(3, 240)},${int(3, 40)}): error TS${pick(['2345', '2322', '2339', '7006', '2532', '18048'])}: ${pick(
      [
        `Argument of type 'string | undefined' is not assignable to parameter of type 'string'.`,
        `Property 'cursor' does not exist on type '${pick(NOUNS)}Query'.`,
        `Object is possibly 'undefined'.`,
        `Type 'number' is not assignable to type 'bigint'.`,
        `Parameter 'row' implicitly has an 'any' type.`,
      ],
    )}`;
  }).join('\n');
}

function containerLogs(lines) {
  const out = [];
  let ms = START_MS - 3_600_000;
  for (let index = 0; index < lines; index++) {
    ms += int(5, 900);
    const level = random() < 0.04 ? 'error' : random() < 0.12 ? 'warn' : 'info';
    const route = pick([
      'GET /orders',
      'POST /orders',
      'GET /orders/:id',
      'POST /payments/capture',
      'GET /health',
      'PATCH /inventory/:sku',
    ]);
    const base = `api-1  | {"level":"${level}","time":"${new Date(ms).toISOString()}","pid":${int(20, 40)},"reqId":"req-${hex(6)}"`;
    if (level === 'error') {
      out.push(
        `${base},"err":{"type":"DatabaseError","message":"${pick(['deadlock detected', 'connection terminated unexpectedly', 'canceling statement due to statement timeout'])}","code":"${pick(['40P01', '57P01', '57014'])}"},"msg":"${route} failed"}`,
      );
    } else {
      out.push(
        `${base},"route":"${route}","status":${level === 'warn' ? pick([409, 422, 429]) : pick([200, 200, 201, 204])},"ms":${int(2, level === 'warn' ? 4000 : 180)},"msg":"request completed"}`,
      );
    }
  }
  return out.join('\n');
}

function lockFile(packages) {
  const names = [
    'fastify',
    'zod',
    'pino',
    'pg',
    'vitest',
    'typescript',
    'undici',
    'ajv',
    'fast-json-stringify',
    'light-my-request',
    'avvio',
    'find-my-way',
    'rfdc',
    'secure-json-parse',
    'tslib',
    'esbuild',
    'rollup',
    'vite',
    'chai',
    'tinyspy',
    'magic-string',
    'postcss',
    'picocolors',
    'semver',
    'debug',
    'ms',
    'yaml',
    'dotenv',
  ];
  const entries = range(packages, (index) => {
    const name = `${pick(names)}${index % 3 === 0 ? '' : `-${pick(['core', 'utils', 'plugin', 'types', 'parser', 'compat'])}`}`;
    const version = `${int(0, 9)}.${int(0, 30)}.${int(0, 20)}`;
    return `    "node_modules/${name}": {\n      "version": "${version}",\n      "resolved": "https://registry.npmjs.org/${name}/-/${name}-${version}.tgz",\n      "integrity": "sha512-${range(86, () => pick([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'])).join('')}==",\n      "dev": ${random() < 0.6},\n      "license": "${pick(['MIT', 'MIT', 'ISC', 'Apache-2.0', 'BSD-3-Clause'])}"\n    }`;
  });
  return `{\n  "name": "orders-service",\n  "version": "2.4.1",\n  "lockfileVersion": 3,\n  "requires": true,\n  "packages": {\n${entries.join(',\n')}\n  }\n}`;
}

function webpackStats(modules) {
  const lines = [
    `asset main.${hex(20)}.js ${int(900, 2400)} KiB [emitted] [immutable] [big] (name: main)`,
    '',
  ];
  for (let index = 0; index < modules; index++) {
    const path = `./${pick(['node_modules', 'node_modules', 'src'])}/${pick(['.pnpm', 'lodash-es', 'date-fns', 'react-dom', 'src'])}/${pick(MODULES)}/${functionName()}.${pick(['js', 'mjs', 'ts', 'tsx'])}`;
    lines.push(`  ${path} ${int(1, 90)}.${int(0, 9)} KiB [built] [code generated]`);
    if (random() < 0.08) {
      lines.push(
        `    WARNING in ${path}`,
        `    Module not found: Error: Can't resolve '${pick(['fs', 'path', 'crypto', 'stream'])}' in '/app/${pick(MODULES)}'`,
        `    BREAKING CHANGE: webpack < 5 used to include polyfills for node.js core modules by default.`,
      );
    }
  }
  lines.push(
    '',
    `WARNING in asset size limit: The following asset(s) exceed the recommended size limit (244 KiB).`,
    `webpack 5.97.1 compiled with ${int(40, 80)} warnings in ${int(30000, 90000)} ms`,
  );
  return lines.join('\n');
}

function grepResult(pattern, hits) {
  const byFile = new Map();
  for (let index = 0; index < hits; index++) {
    const file = pick([...sourceFiles, ...testFiles]);
    const list = byFile.get(file) ?? [];
    list.push(
      `L${int(3, 300)}: ${pick(['  const ', '  return ', '  if (', 'export function ', '  await '])}${pattern}${pick(['(db, input);', ' = await repo.list(query);', ' ?? DEFAULT_LIMIT;', '.offset, query.limit)', ') {'])}`,
    );
    byFile.set(file, list);
  }
  const body = [...byFile.entries()]
    .map(([file, list]) => `File: ${file}\n${list.join('\n')}`)
    .join('\n---\n');
  return `Found ${hits} matches for pattern "${pattern}" in path ".":\n---\n${body}\n---`;
}

function directoryListing(path, count) {
  const entries = range(count, (index) =>
    index < count / 4
      ? `[DIR] ${pick(MODULES)}${index}`
      : `${pick(MODULES)}.${pick(LAYERS)}${index}.ts`,
  );
  return `Directory listing for ${ROOT}/${path}:\n${entries.join('\n')}`;
}

function gitLog(count) {
  return range(
    count,
    () =>
      `commit ${hex(40)}\nAuthor: ${pick(['Dana Ruiz', 'Ola Nowak', 'Kenji Sato', 'Priya Raman'])} <${pick(['dana', 'ola', 'kenji', 'priya'])}@example.com>\nDate:   ${new Date(START_MS - int(1, 90) * 86_400_000).toUTCString()}\n\n    ${pick(['fix', 'feat', 'chore', 'refactor'])}(${pick(MODULES)}): ${pick(['handle empty carts', 'retry on deadlock', 'bump fastify', 'split repository', 'add idempotency keys', 'cache customer lookups'])}\n`,
  ).join('\n');
}

/** A small solid-colour PNG with a darker band, built by hand (zlib + CRC-32). */
function pngBase64(width, height) {
  const crcTable = range(256, (n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (buffer) => {
    let c = 0xffffffff;
    for (const byte of buffer) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const rows = range(height, (y) => {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const band = y > height * 0.4 && y < height * 0.55;
      row.set(band ? [200, 40, 40] : [245, 245, 250], 1 + x * 3);
    }
    return row;
  });
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return png.toString('base64');
}

// ---------------------------------------------------------------- the conversation

const contents = [];
let clock = START_MS;
let callNumber = 0;

function user(text) {
  contents.push({ role: 'user', parts: [{ text }] });
}

/**
 * One model turn with one or more tool calls and the user turn carrying their responses.
 * `calls`: [{ name, args, output, extraResponse, nestedParts }]
 */
/** One turn per file, each reading it back whole (`lines` picks its length, in call order). */
function readEach(paths, lines) {
  for (const path of paths) turn(`Reading ${path}.`, [read(path, typescriptSource(path, lines()))]);
}

function turn(thought, calls) {
  const ids = calls.map((call) => {
    clock += int(2_000, 40_000);
    return `${call.name}-${clock}-${hex(6)}`;
  });
  contents.push({
    role: 'model',
    parts: [
      { text: thought },
      ...calls.map((call, index) => ({
        functionCall: { id: ids[index], name: call.name, args: call.args },
      })),
    ],
  });
  contents.push({
    role: 'user',
    parts: calls.map((call, index) => {
      const functionResponse = {
        id: ids[index],
        name: call.name,
        response: { output: call.output },
      };
      if (call.nestedParts) functionResponse.parts = call.nestedParts;
      return { functionResponse };
    }),
  });
  callNumber += calls.length;
}

function answer(text) {
  contents.push({ role: 'model', parts: [{ text }] });
}

const shell = (command, output, options) => ({
  name: 'run_shell_command',
  args: { command, description: `Runs \`${command.split(' ').slice(0, 3).join(' ')}\`.` },
  output: shellOutput(output, options),
});
const read = (path, output) => ({
  name: 'read_file',
  args: { file_path: `${ROOT}/${path}` },
  output,
});
const grep = (pattern, hits) => ({
  name: 'grep_search',
  args: { pattern, dir_path: ROOT },
  output: grepResult(pattern, hits),
});
const edit = (path) => ({
  name: 'replace',
  args: {
    file_path: `${ROOT}/${path}`,
    old_string: `const limit = query.limit;`,
    new_string: `const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT);`,
  },
  output: `Successfully modified file: ${ROOT}/${path} (1 replacements).`,
});

// Task 1: CI is red.
user(
  'CI has been red since this morning on `npm test` in the orders service. Find out why and fix it. Do not touch the payments module unless you have to.',
);
turn('I will start by reproducing the failure locally with the full, verbose test run.', [
  shell(
    'npm test -- --reporter=verbose',
    jestRun({
      verbose: true,
      failing: [
        {
          file: 'src/orders/orders.service.test.ts',
          name: 'list orders paginates with a cursor',
          message: 'expected [ …(25) ] to have a length of 20 but got 25',
        },
        {
          file: 'src/orders/orders.handler.test.ts',
          name: 'GET /orders returns 200 with totals',
          message: 'expected 1299 to be 1298 // Object.is equality',
        },
        {
          file: 'src/invoices/invoices.service.test.ts',
          name: 'rounds totals half-even',
          message: "expected '12.99' to be '12.98'",
        },
      ],
      suites: [...testFiles, ...testFiles, ...testFiles],
    }),
    { exitCode: 1 },
  ),
]);
turn('Three failures. Let me look at recent changes to the orders and invoices modules.', [
  shell('git log -n 40 --stat -- src/orders src/invoices', gitLog(40)),
]);
turn(
  'The rounding failure suggests a change in money handling. Searching for the rounding helper.',
  [grep('roundHalfEven', 34)],
);
readEach(
  [
    'src/invoices/invoices.service.ts',
    'src/orders/orders.service.ts',
    'src/orders/orders.repository.ts',
  ],
  () => int(220, 420),
);
turn('Checking which dependency versions changed in the lock file.', [
  shell('git diff HEAD~3 -- package-lock.json | head -c 200000', lockFile(320)),
]);
turn('decimal.js moved a minor version. Confirming with the installed tree.', [
  shell(
    'npm ls decimal.js --all',
    range(
      80,
      (i) =>
        `${'│  '.repeat(i % 5)}├─┬ ${pick(['fastify', 'pino', 'vitest', 'decimal.js'])}@${int(1, 9)}.${int(0, 20)}.${int(0, 9)}`,
    ).join('\n'),
  ),
]);
turn('Fixing the rounding call to pass the rounding mode explicitly.', [
  edit('src/invoices/invoices.service.ts'),
]);
turn('And the pagination default in the orders service.', [edit('src/orders/orders.service.ts')]);
turn('Re-running the failing suites only.', [
  shell('npx vitest run src/orders src/invoices', jestRun({ suites: testFiles.slice(0, 6) })),
]);
turn('Now the whole suite, to be sure nothing else moved.', [
  shell('npm test', jestRun({ suites: testFiles })),
]);
answer(
  'Fixed. `decimal.js` 10.5 changed the default rounding mode; `invoices.service.ts` now passes `ROUND_HALF_EVEN` explicitly, and the orders list clamps `limit` to the documented default of 20. All 21 suites pass.',
);

// Task 2: pagination.
user(
  'Thanks. Next: add proper pagination to GET /orders — `limit` (max 100) and an opaque `cursor`, with tests. Keep the old `offset` working for one release.',
);
turn('Let me find every place that builds the orders list query.', [grep('listOrders', 48)]);
turn('And the route definitions.', [
  {
    name: 'list_directory',
    args: { dir_path: `${ROOT}/src/orders` },
    output: directoryListing('src/orders', 40),
  },
]);
readEach(
  [
    'src/orders/orders.handler.ts',
    'src/orders/orders.schema.ts',
    'src/orders/orders.repository.ts',
    'src/db/client.ts',
    'src/db/migrations/0042_orders_created_at.sql',
    'src/orders/orders.mapper.ts',
    'docs/api/orders.md',
  ],
  () => int(150, 320),
);
turn('Before I change the API shape I will check with you.', [
  {
    name: 'ask_user',
    args: {
      questions: [
        {
          question: 'Should the cursor encode (created_at, id) or only id?',
          header: 'Cursor',
          options: [{ label: '(created_at, id)' }, { label: 'id only' }],
        },
      ],
    },
    output:
      'User answered: Cursor -> (created_at, id). Orders are listed newest first; ids are UUIDv7 but older rows are v4.',
  },
]);
for (let index = 0; index < 6; index++) {
  turn(`Editing step ${index + 1} of the cursor pagination.`, [
    edit(
      pick([
        'src/orders/orders.handler.ts',
        'src/orders/orders.repository.ts',
        'src/orders/orders.schema.ts',
      ]),
    ),
  ]);
}
turn('Type-checking.', [shell('npx tsc --noEmit -p .', tscErrors(46), { exitCode: 2 })]);
turn('A few type errors from the new query type. Reading the shared types.', [
  read('src/orders/orders.types.ts', typescriptSource('src/orders/orders.types.ts', 180)),
]);
for (let index = 0; index < 3; index++) {
  turn('Fixing the remaining type errors.', [
    edit('src/orders/orders.repository.ts'),
    edit('src/orders/orders.handler.ts'),
  ]);
}
turn('Type-checking again.', [shell('npx tsc --noEmit -p .', '')]);
turn('Checking what changed so far.', [
  shell('git status --short', range(9, () => ` M ${pick(sourceFiles)}`).join('\n')),
]);
turn('Linting the changed files.', [
  shell(
    'npx eslint src/orders',
    range(
      14,
      () =>
        `${ROOT}/${pick(sourceFiles)}\n  ${int(3, 200)}:${int(3, 40)}  ${pick(['warning', 'error'])}  ${pick(['Unexpected any. Specify a different type', "'offset' is assigned a value but never used", 'Missing return type on function'])}  ${pick(['@typescript-eslint/no-explicit-any', '@typescript-eslint/no-unused-vars', '@typescript-eslint/explicit-function-return-type'])}`,
    ).join('\n\n') + '\n\n✖ 14 problems (5 errors, 9 warnings)',
    { exitCode: 1 },
  ),
]);
for (let index = 0; index < 3; index++) {
  turn('Fixing the lint errors.', [
    edit(pick(['src/orders/orders.handler.ts', 'src/orders/orders.repository.ts'])),
  ]);
}
turn('Writing the tests for the cursor.', [
  {
    name: 'write_file',
    args: {
      file_path: `${ROOT}/src/orders/orders.pagination.test.ts`,
      content: typescriptSource('src/orders/orders.pagination.test.ts', 90),
    },
    output: `Successfully created and wrote to new file: ${ROOT}/src/orders/orders.pagination.test.ts.`,
  },
]);
turn('Running the orders tests.', [
  shell(
    'npx vitest run src/orders --reporter=verbose',
    jestRun({ verbose: true, suites: testFiles.slice(0, 4) }),
  ),
]);
answer(
  'GET /orders now takes `limit` (1–100, default 20) and an opaque base64url `cursor` of (created_at, id); `offset` still works and logs a deprecation warning. 14 new tests.',
);

// Task 3: slow, noisy build.
user(
  'The production build takes over a minute and prints a wall of warnings. Can you see what is going on?',
);
turn('Running the production build with stats to see what is bundled.', [
  shell('npm run build:web -- --stats=verbose', webpackStats(7400), { exitCode: 0 }),
]);
turn('The bundle pulls in node core modules. Checking the config.', [
  read('webpack.config.js', typescriptSource('webpack.config.js', 140)),
]);
turn('Looking for imports of server code from the web entry.', [
  grep("from '../db/client.js'", 62),
]);
readEach(['src/web/entry.tsx', 'src/web/checkout/Totals.tsx', 'src/orders/orders.types.ts'], () =>
  int(80, 200),
);
turn('Which node core modules end up in the bundle?', [
  shell("grep -c 'Can\\'t resolve' build/stats.txt", '', { exitCode: 1 }),
]);
for (let index = 0; index < 4; index++) {
  turn('Moving the shared types out of the server-only modules.', [edit(pick(sourceFiles))]);
}
turn('Building again.', [shell('npm run build:web', webpackStats(300))]);
answer(
  'The web entry imported `orders.repository.ts` for one type, which dragged `pg`, `fs` and `crypto` into the bundle. The types now live in `orders.types.ts`; the build takes 18 s instead of 71 s and prints no warnings about node core modules.',
);

// Task 4: a screenshot.
user(
  'Support sent a screenshot of the checkout page with a red bar over the totals: docs/bugs/checkout-1234.png. What is that?',
);
turn('Let me look at the screenshot.', [
  {
    name: 'read_file',
    args: { file_path: `${ROOT}/docs/bugs/checkout-1234.png` },
    output: 'Binary content provided (1 item(s)).',
    nestedParts: [{ inlineData: { mimeType: 'image/png', data: pngBase64(160, 90) } }],
  },
]);
turn('It is the error banner. Checking the API logs around the time of the report.', [
  shell('docker compose logs api --since 2h --no-color', containerLogs(1100)),
]);
turn('Deadlocks on payment capture. Reading the capture code.', [
  read(
    'src/payments/payments.service.ts',
    typescriptSource('src/payments/payments.service.ts', 380),
  ),
]);
turn('Searching for every transaction that locks orders and payments.', [grep('FOR UPDATE', 27)]);
for (let index = 0; index < 3; index++) {
  turn('Making both paths lock orders before payments.', [
    edit(pick(['src/payments/payments.service.ts', 'src/orders/orders.service.ts'])),
  ]);
}
turn('Running the payments tests.', [
  shell('npx vitest run src/payments', jestRun({ suites: testFiles.slice(3, 6) })),
]);
answer(
  'The banner is the "payment failed" state: capture and cancel locked `payments` and `orders` in opposite order and deadlocked under load (see the 40P01 errors in the logs). Both now lock the order first.',
);

// Task 5: a flaky integration test, with a few long noisy runs.
user(
  'Last one: `npm run test:integration` fails about one run in five on CI. Please make it reliable.',
);
for (let attempt = 0; attempt < 4; attempt++) {
  const fails = attempt % 2 === 0;
  turn(`Running the integration suite (attempt ${attempt + 1}) to catch the flake.`, [
    shell(
      'npm run test:integration -- --reporter=verbose',
      jestRun({
        verbose: true,
        suites: testFiles,
        failing: fails
          ? [
              {
                file: 'src/shipping/shipping.service.test.ts',
                name: 'reserve shipment after payment',
                message: 'expected "RESERVED" to be "PENDING"',
              },
            ]
          : [],
      }),
      { exitCode: fails ? 1 : 0 },
    ),
  ]);
}
turn('The shipping test depends on timing. Reading it.', [
  read(
    'src/shipping/shipping.service.test.ts',
    typescriptSource('src/shipping/shipping.service.test.ts', 260),
  ),
]);
turn('Listing the test helpers.', [
  {
    name: 'list_directory',
    args: { dir_path: `${ROOT}/test/helpers` },
    output: directoryListing('test/helpers', 24),
  },
]);
turn('Replacing the sleep with a wait on the event.', [
  edit('src/shipping/shipping.service.test.ts'),
]);
for (let attempt = 0; attempt < 3; attempt++) {
  turn(`Running the suite ${attempt + 1} of 3 times to check the fix.`, [
    shell('npm run test:integration', jestRun({ suites: testFiles })),
  ]);
}
turn('Cleaning up the stray containers the flaky runs left behind.', [
  shell(
    'docker ps -a --filter name=orders-it --format "{{.ID}} {{.Status}}"',
    range(12, () => `${hex(12)} Exited (${pick([0, 1, 137])}) ${int(2, 50)} minutes ago`).join(
      '\n',
    ),
  ),
]);
answer(
  'The shipping test slept 50 ms and hoped the reservation had happened; it now awaits the `shipment.reserved` event (with a 2 s timeout). Ten runs in a row pass.',
);

// ---------------------------------------------------------------- write

const text = JSON.stringify(contents) + '\n';
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(OUTPUT, 'utf8');
  } catch {
    // missing: not up to date
  }
  if (current !== text) {
    console.error(`${OUTPUT} is out of date: run node scripts/generate-example.mjs`);
    process.exit(1);
  }
  console.log(`${OUTPUT} is up to date.`);
} else {
  mkdirSync(dirname(OUTPUT), { recursive: true });
  writeFileSync(OUTPUT, text);
  console.log(
    `Wrote ${OUTPUT}: ${contents.length} contents, ${callNumber} tool calls, ${Math.round(text.length / 1024)} KiB.`,
  );
}
