/**
 * Property-based tests of the masking pass (docs/reliability.md, guarantees 3, 4 and 5).
 *
 * Thousands of generated histories, malformed ones included: missing or non-array `parts`,
 * null/primitive contents and parts, null/undefined/primitive/array `response`, non-string names
 * and ids, duplicate ids, shared objects, parts with several fields, huge and deeply nested
 * responses, cycles, BigInt, lone surrogates. On each, one pass on a memfs store must:
 * - resolve (never reject) and leave its input untouched;
 * - keep the number of entries, their roles, every id, name and sibling part; change nothing but
 *   `functionResponse.response` of parts the masking rule (re-stated here as an oracle) selects;
 * - never increase the estimated tokens;
 * - save a file per masked part whose text round-trips to the original response;
 * - be idempotent: a second pass (same service, or a fresh one on a clone told of the snippets
 *   with `markMasked`, as a host restoring its own log does) changes nothing, and repeating the
 *   pass on the original history (a crash before the host kept the result) produces the same
 *   history and no new file;
 * - write snippets that are well-formed (no lone surrogate), whose `file` attribute, as written or
 *   decoded, names the file.
 * Outputs shaped like snippets (not produced by the service) are ordinary outputs.
 *
 * Runs are seeded: set TOOLMASK_FC_SEED to explore other inputs, TOOLMASK_FC_RUNS (a multiplier,
 * default 1 in CI and 0.4 outside it) for longer runs. fast-check prints the seed and path of any counterexample.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import fc from 'fast-check';
import { Volume, createFsFromVolume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { isForeignMarker } from './foreignMarkers.js';
import type { Content, MaskingHost, MaskingResult, Part } from './maskingTypes.js';
import {
  resolveToolOutputMaskingConfig,
  type ToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
import { ToolOutputMaskingService } from './toolOutputMaskingService.js';
import { createFileToolOutputStore, type StoreFileSystem } from '../storage/toolOutputStore.js';
import { TOOL_OUTPUTS_DIR, outputFileName, sessionDirectory } from '../storage/outputLayout.js';
import {
  formatMaskedSnippet,
  isMaskedResponse,
  MASKED_TAG,
  parseMaskedSnippet,
} from './maskedSnippet.js';
import { decodeAttribute } from '../utils/attributeEscaping.js';
import { isWellFormed } from '../utils/codePoints.js';
import {
  estimateFunctionResponseTokens,
  estimateTokenCountSync,
} from '../utils/tokenCalculation.js';

const SEED = Number(process.env['TOOLMASK_FC_SEED'] ?? 20_260_601);
// CI runs every seeded case; a developer's `npm run test:unit` runs the first 40% of them (the
// same seed, so the same cases, a prefix of CI's), which keeps the unit lane's feedback quick.
const RUNS = Math.max(
  0.01,
  Number(process.env['TOOLMASK_FC_RUNS'] ?? (process.env['CI'] ? 1 : 0.4)),
);
const runs = (count: number) => ({ seed: SEED, numRuns: Math.round(count * RUNS) });

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => value !== null && typeof value === 'object';
const isPlainObject = (value: unknown): value is Obj => isObject(value) && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** Any code point, plus the characters that matter to headers and paths, plus lone surrogates. */
const unit = fc.oneof(
  { weight: 100, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 100, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 10, arbitrary: fc.constantFrom('\n', '\r', '"', '<', '>', '&', '/', '.', '\u0000') },
  { weight: 1, arbitrary: loneSurrogate },
);
const text = (maxLength: number) => fc.string({ unit, maxLength });

/** Bulky text built cheaply: a few generated lines repeated up to 3,000 times (up to ~200 KB). */
const bulkyText = fc
  .tuple(fc.array(text(70), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 3_000 }))
  .map(([lines, count]) =>
    Array.from({ length: count }, (_, index) => `${index} ${lines[index % lines.length]}`).join(
      '\n',
    ),
  );

const TOOL_NAMES = [
  'run_shell_command',
  'read_file',
  'grep_search',
  'custom_tool',
  'memory', // built-in exempt
  'read_tool_output', // built-in exempt
  '../../escape',
  'CON',
  '',
];
const toolName = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...TOOL_NAMES) },
  { weight: 2, arbitrary: text(30) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 42, { name: 'x' }, ['x']) },
);
const callId = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.constantFrom(
      'call-1',
      'call-2',
      'dup', // duplicate ids across parts
      '../../../etc/passwd',
      '/absolute/path',
      'C:\\Windows\\x',
      'a\u0000b',
      'NUL',
      '',
      'x'.repeat(400),
    ),
  },
  { weight: 4, arbitrary: text(40) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 7, { id: 1 }) },
);

/** A response nested `depth` levels deep with bulk at the bottom. */
const deepResponse = fc
  .tuple(fc.integer({ min: 2, max: 1_500 }), fc.integer({ min: 1, max: 400 }))
  .map(([depth, width]) => {
    let value: unknown = Array.from({ length: width }, (_, index) => `leaf ${index}`);
    for (let level = 0; level < depth; level++) value = { level, child: value };
    return value as Obj;
  });

/** Responses that cannot be serialized: a cycle, a BigInt. Fresh objects each time. */
const unserializable = fc.tuple(bulkyText, fc.boolean()).map(([output, cyclic]) => {
  if (!cyclic) return { output, count: 10n } as Obj;
  const response: Obj = { output };
  response['self'] = response;
  return response;
});

/** Real outputs that quote the masked tag without being a snippet (toolmask reading itself). */
const quotingTag = fc.tuple(bulkyText, fc.nat({ max: 4 })).map(([body, variant]) => {
  const snippet = formatMaskedSnippet({
    lines: 3,
    bytes: 30,
    filePath: '/p/tool-outputs/session-s/read_file.c.0123456789abcdef.txt',
    preview: body.slice(0, 200),
  });
  const output = [
    `const tag = '<${MASKED_TAG}>';\n${body}`,
    `<${MASKED_TAG}>\n${body}\n</${MASKED_TAG}>`, // old gemini-cli style
    `${snippet}\n${body}`, // a snippet followed by more text
    `${body}\n${snippet}`,
    snippet.replace(`</${MASKED_TAG}>`, body),
  ][variant] as string;
  return { output };
});

/**
 * Tool outputs shaped exactly like a snippet (header, closing tag) around bulky text: ordinary
 * outputs for the service, which only trusts its own record.
 */
const snippetShaped = fc
  .tuple(bulkyText, fc.nat(), fc.nat(), text(60))
  .map(([body, lines, bytes, file]) => ({
    output: formatMaskedSnippet({ lines, bytes, filePath: `/p/${file}`, preview: body }),
  }));

/**
 * Lines of astral characters (emoji, CJK extension B) shifted by 0-3 ASCII characters, so that
 * every cut a preview makes (line heads and tails, capped sections) falls once inside a pair.
 */
const surrogatePairs = fc
  .tuple(
    fc.constantFrom('😀', '𠀀', '🔥a'),
    fc.integer({ min: 1, max: 100 }),
    fc.integer({ min: 20, max: 200 }),
  )
  .map(([astral, width, count]) => {
    const lines = Array.from(
      { length: count },
      (_, index) => `${'x'.repeat(index % 4)}${astral.repeat(width)}`,
    );
    return lines.join('\n');
  });

const response: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: snippetShaped },
  { weight: 2, arbitrary: surrogatePairs.map((output) => ({ output })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(surrogatePairs, surrogatePairs)
      .map(([output, error]) => ({ output: `Output: ${output}\nError: ${error}\nExit Code: 1` })),
  },
  { weight: 14, arbitrary: bulkyText.map((output) => ({ output })) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        output: bulkyText,
        exitCode: fc.integer({ min: -2, max: 255 }),
        error: fc.option(text(200), { nil: undefined }),
        stderr: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: ['output'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.dictionary(
      text(12),
      fc.oneof(bulkyText, fc.jsonValue({ maxDepth: 4 }), fc.array(bulkyText, { maxLength: 3 })),
      { maxKeys: 5 },
    ),
  },
  // `output` that is not a string.
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.jsonValue({ maxDepth: 3 }),
        bulkyText.map((body) => body.split('\n')),
      )
      .map((output) => ({ output })),
  },
  // A null-prototype response.
  {
    weight: 1,
    arbitrary: bulkyText.map((output) => Object.assign(Object.create(null) as Obj, { output })),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, // primitives, arrays, null
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'plain string', 42, true) },
  { weight: 2, arbitrary: deepResponse },
  { weight: 2, arbitrary: unserializable },
  { weight: 2, arbitrary: quotingTag },
);

const functionResponse = fc.record(
  {
    id: callId,
    name: toolName,
    response,
    parts: fc.constant([{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }]),
    willContinue: fc.boolean(),
  },
  { requiredKeys: ['response'] },
);

const part: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: functionResponse.map((value) => ({ functionResponse: value })) },
  // A part with several fields.
  {
    weight: 2,
    arbitrary: fc.record(
      {
        functionResponse: fc.oneof(
          functionResponse,
          functionResponse.map(({ id, name }) => ({ id, name })),
        ),
        text: text(50),
        functionCall: fc.constant({ name: 'x', args: {} }),
        thought: fc.boolean(),
      },
      { requiredKeys: ['functionResponse'] },
    ),
  },
  { weight: 3, arbitrary: text(200).map((value) => ({ text: value })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(callId, toolName)
      .map(([id, name]) => ({ functionCall: { id, name, args: { path: 'a' } } })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      null,
      undefined,
      42,
      'part',
      { functionResponse: null },
      { functionResponse: 'x' },
      { functionResponse: [] },
      { inlineData: { mimeType: 'text/plain', data: 'AA==' } },
    ),
  },
);

const content: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 14,
    arbitrary: fc.record({
      role: fc.constantFrom('user', 'model'),
      parts: fc.array(part, { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ role: fc.constantFrom('user', 'model', 'tool') }) },
  {
    weight: 1,
    arbitrary: fc.record({
      role: fc.constantFrom<unknown>('user', undefined, 3),
      parts: fc.constantFrom<unknown>(null, 'x', 42, {}),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, undefined, 42, 'text') },
);

/** A history, with some entries, parts and responses shared by reference (same object twice). */
const history = fc
  .tuple(
    fc.array(content, { maxLength: 22 }),
    fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('content', 'part', 'response')), {
      maxLength: 3,
    }),
  )
  .map(([entries, shares]) => {
    for (const [from, to, what] of shares) {
      if (entries.length === 0) break;
      const source = entries[from % entries.length];
      if (what === 'content') {
        entries.push(source);
        continue;
      }
      const target = entries[to % entries.length];
      const sourceParts = isObject(source) ? source['parts'] : undefined;
      const targetParts = isObject(target) ? target['parts'] : undefined;
      if (!Array.isArray(sourceParts) || !Array.isArray(targetParts)) continue;
      const sourcePart = sourceParts[0];
      if (what === 'part') targetParts.push(sourcePart);
      else if (isObject(sourcePart) && isObject(sourcePart['functionResponse'])) {
        targetParts.push({
          functionResponse: {
            id: 'shared',
            name: 'custom_tool',
            response: sourcePart['functionResponse']['response'],
          },
        });
      }
    }
    return entries as Content[];
  });

const settings: fc.Arbitrary<ToolOutputMaskingSettings> = fc.record({
  toolProtectionThreshold: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })),
  coldCacheProtectionThreshold: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60_000 })),
  minPrunableTokensThreshold: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })),
  protectLatestTurn: fc.boolean(),
  maxOutputTokens: fc.constantFrom(0, 3_000, 20_000, 200_000),
  exemptTools: fc.subarray(['custom_tool', 'grep_search']),
});

const hostPlace = fc.record({
  projectTempDir: fc.constantFrom(
    '/project-temp',
    '/tmp/with space',
    '/x/"q"&<a>',
    '/home/R&D/Données 😀',
    '/t/&amp;&quot;;\r\n',
  ),
  sessionId: fc.oneof(fc.constantFrom('s-1', '../other', ''), text(20)),
});

// ---------------------------------------------------------------------------------------------
// Oracles and helpers
// ---------------------------------------------------------------------------------------------

/**
 * The protection rule, re-stated from docs/settings.md, as `contentIndex:partIndex` keys:
 * `prunable` = countable outputs (not exempt, not another host's marker) outside the protected window (older than the newest
 * `toolProtectionThreshold` tokens, or at a cold-cache moment `coldCacheProtectionThreshold` when
 * smaller; never in the latest entry when it is protected), `oversized` =
 * countable outputs above `maxOutputTokens`. Whether a pass masks the prunable batch at all is a
 * cost decision (thresholds, cache state) that this oracle leaves to the planner's own tests; what
 * it pins down is that nothing else is ever masked, and that the batch is all or nothing.
 */
function protectionOracle(
  entries: readonly Content[],
  config: ToolOutputMaskingConfig,
  cacheLikelyCold: boolean,
): { prunable: Set<string>; oversized: Set<string>; tokens: Map<string, number> } {
  const window = cacheLikelyCold
    ? Math.min(config.toolProtectionThreshold, config.coldCacheProtectionThreshold)
    : config.toolProtectionThreshold;
  const exempt = new Set(config.exemptTools);
  const maxOutput = config.maxOutputTokens > 0 ? config.maxOutputTokens : Infinity;
  const scanEnd = config.protectLatestTurn ? entries.length - 1 : entries.length;
  const prunable = new Set<string>();
  const oversized = new Set<string>();
  const tokens = new Map<string, number>();
  let protectedTokens = 0;
  let crossed = false;
  for (let contentIndex = entries.length - 1; contentIndex >= 0; contentIndex--) {
    const parts = (entries[contentIndex] as { parts?: unknown } | null | undefined)?.parts;
    if (!Array.isArray(parts)) continue;
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      const fr = (parts[partIndex] as Part | null | undefined)?.functionResponse;
      if (!fr) continue;
      if (exempt.has(typeof fr.name === 'string' ? fr.name : '')) continue;
      // Nothing in a generated history was produced by the service: every response counts, but
      // another host's marker (foreignMarkers.ts: a short output in its shape) never does.
      if (!isPlainObject(fr.response) || isForeignMarker(fr.response)) continue;
      const count = estimateFunctionResponseTokens(fr.response);
      const key = `${contentIndex}:${partIndex}`;
      tokens.set(key, count);
      if (count > maxOutput) oversized.add(key);
      else if (contentIndex >= scanEnd) continue;
      else if (!crossed && protectedTokens + count <= window) {
        protectedTokens += count;
      } else {
        crossed = true;
        prunable.add(key);
      }
    }
  }
  return { prunable, oversized, tokens };
}

// The values generated here are large (hundreds of KB, thousands of levels): a failing
// `toEqual`/`toBe` on them makes vitest format a diff for minutes on every shrinking step. So
// the checks on them compare cheaply and fail with a short message; fast-check prints the input.

/** Fails with `what` unless `actual` is `expected` (same object or primitive). */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected)) throw new Error(`${what}: not the same value`);
}

/**
 * A structural fingerprint: types, own enumerable keys and primitive values, null prototypes,
 * and which objects are shared (a repeated object is written as a back-reference), so two
 * values with equal fingerprints are deeply equal with the same sharing. Handles cycles, BigInt,
 * undefined and lone surrogates.
 */
function fingerprint(value: unknown): string {
  const seen = new Map<object, number>();
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string') out.push(JSON.stringify(v));
      else out.push(typeof v === 'bigint' ? `${v}n` : `${typeof v}:${String(v)}`);
      return;
    }
    const id = seen.get(v);
    if (id !== undefined) {
      out.push(`@${id}`);
      return;
    }
    seen.set(v, seen.size);
    out.push(Array.isArray(v) ? '[' : Object.getPrototypeOf(v) === null ? '{null;' : '{');
    for (const key of Object.keys(v)) {
      out.push(JSON.stringify(key), ':');
      walk((v as Obj)[key]);
      out.push(',');
    }
    out.push(Array.isArray(v) ? ']' : '}');
  };
  walk(value);
  return out.join('');
}

/** Every object and field at the levels the pass works on (entries, parts, functionResponses). */
function shallowSnapshot(entries: readonly Content[]): unknown[] {
  const out: unknown[] = [];
  const add = (value: unknown) => {
    out.push(value);
    if (isObject(value)) for (const [key, field] of Object.entries(value)) out.push(key, field);
  };
  for (const entry of entries) {
    add(entry);
    const parts = isObject(entry) ? entry['parts'] : undefined;
    if (!Array.isArray(parts)) continue;
    for (const p of parts) {
      add(p);
      add(isObject(p) ? p['functionResponse'] : undefined);
    }
  }
  return out;
}

function sameSnapshot(actual: unknown[], expected: unknown[], what: string): void {
  if (actual.length !== expected.length || actual.some((v, i) => !Object.is(v, expected[i]))) {
    throw new Error(`${what}: an entry, part or functionResponse was changed in place`);
  }
}

function estimatedTokens(entries: readonly Content[]): number {
  let total = 0;
  for (const entry of entries) {
    const parts = (entry as { parts?: unknown } | null | undefined)?.parts;
    if (!Array.isArray(parts)) continue;
    total += estimateTokenCountSync(parts as Part[]);
  }
  return total;
}

const sha16 = (value: string) =>
  createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);
const hasLoneSurrogate = (value: string) => /\p{Cs}/u.test(value);

type MemoryFs = ReturnType<typeof createFsFromVolume>;

function listFiles(memory: MemoryFs, directory: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = memory.readdirSync(directory) as string[];
  } catch {
    return out;
  }
  for (const name of names) {
    const full = path.join(directory, name);
    if (memory.lstatSync(full).isDirectory()) out.push(...listFiles(memory, full));
    else out.push(full);
  }
  return out.sort();
}

function setup(
  settingsValue: ToolOutputMaskingSettings,
  place: { projectTempDir: string; sessionId: string },
) {
  const fsm = createFsFromVolume(new Volume());
  const config = resolveToolOutputMaskingConfig(settingsValue);
  const host: MaskingHost = {
    getToolOutputMaskingConfig: async () => config,
    getSessionId: () => place.sessionId,
    storage: { getProjectTempDir: () => place.projectTempDir },
  };
  const service = () =>
    new ToolOutputMaskingService({
      store: createFileToolOutputStore({ fs: fsm as unknown as StoreFileSystem }),
      telemetry: () => undefined,
    });
  return { fsm, config, host, service };
}

/** Checks everything a single pass promises about `result` for the input `input`. */
async function checkPass(
  input: readonly Content[],
  result: MaskingResult,
  config: ToolOutputMaskingConfig,
  fsm: MemoryFs,
  directory: string,
  cacheLikelyCold: boolean,
): Promise<void> {
  const output = result.newHistory;
  expect(output.length).toBe(input.length);
  const { prunable, oversized, tokens } = protectionOracle(input, config, cacheLikelyCold);
  const changedIndices = new Set(result.changedIndices);
  const maskedKeys: string[] = [];

  for (let i = 0; i < input.length; i++) {
    const before = input[i] as unknown;
    const after = output[i] as unknown;
    if (!changedIndices.has(i)) {
      same(after, before, `unchanged entry ${i}`);
      continue;
    }
    // Same role, same keys, every field but `parts` shared.
    expect(isObject(before) && isObject(after)).toBe(true);
    const b = before as Obj;
    const a = after as Obj;
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const key of Object.keys(b))
      if (key !== 'parts') same(a[key], b[key], `entry ${i}.${key}`);
    const bParts = b['parts'] as unknown[];
    const aParts = a['parts'] as unknown[];
    expect(aParts.length).toBe(bParts.length);
    for (let j = 0; j < bParts.length; j++) {
      const bp = bParts[j];
      const ap = aParts[j];
      if (ap === bp) continue;
      const where = `part ${i}:${j}`;
      maskedKeys.push(`${i}:${j}`);
      // Only functionResponse.response changed: every sibling field and id/name kept.
      const bPart = bp as Obj;
      const aPart = ap as Obj;
      expect(Object.keys(aPart)).toEqual(Object.keys(bPart));
      for (const key of Object.keys(bPart)) {
        if (key !== 'functionResponse') same(aPart[key], bPart[key], `${where} ${key}`);
      }
      const bFr = bPart['functionResponse'] as Obj;
      const aFr = aPart['functionResponse'] as Obj;
      expect(Object.keys(aFr)).toEqual(Object.keys(bFr));
      for (const key of Object.keys(bFr)) {
        if (key !== 'response') same(aFr[key], bFr[key], `${where} functionResponse.${key}`);
      }
      expect(isMaskedResponse(aFr['response'])).toBe(true);
      const maskedOutput = (aFr['response'] as { output: string }).output;
      if (!isWellFormed(maskedOutput)) {
        throw new Error(`${where}: the snippet has a lone surrogate`);
      }
      // No cut split a pair (which the snippet would show as U+FFFD).
      const originalText = JSON.stringify(bFr['response']) ?? '';
      if (maskedOutput.includes('\ufffd') && !/\ufffd|\\ud[89a-f]/i.test(originalText)) {
        throw new Error(`${where}: a cut split a surrogate pair`);
      }

      // The saved file round-trips to the original response, under a content-addressed name.
      const original = bFr['response'] as Obj;
      const snippet = parseMaskedSnippet((aFr['response'] as { output: string }).output);
      expect(snippet).toBeDefined();
      const filePath = snippet!.filePath;
      expect(path.dirname(filePath)).toBe(path.resolve(directory));
      // The attribute as written (what a model copies) decodes to the path; without anything to
      // escape it is the path itself.
      const attribute = /^<tool_output_masked [^\n]* file="([^"\n]*)">/.exec(maskedOutput)?.[1];
      expect(decodeAttribute(attribute ?? '')).toBe(filePath);
      if (!/["\r\n]|&\w+;|&#/.test(filePath)) expect(attribute).toBe(filePath);
      const saved = fsm.readFileSync(filePath, 'utf8') as string;
      const keys = Object.keys(original);
      const plainText =
        keys.length === 1 &&
        keys[0] === 'output' &&
        typeof original['output'] === 'string' &&
        !hasLoneSurrogate(original['output']);
      const roundTrips = plainText
        ? saved === original['output']
        : JSON.stringify(JSON.parse(saved)) === JSON.stringify(original);
      if (!roundTrips) throw new Error(`${where}: the saved file does not round-trip`);
      const name = typeof bFr['name'] === 'string' ? bFr['name'] : 'unknown';
      expect(path.basename(filePath)).toBe(outputFileName(name, bFr['id'], saved));
      expect(path.basename(filePath).slice(-20, -4)).toBe(sha16(saved));
      expect(snippet!.bytes).toBe(Buffer.byteLength(saved, 'utf8'));
      expect(result.offloaded.map((item) => item.filePath)).toContain(filePath);
    }
  }

  // Only prunable or oversized outputs are masked ...
  for (const key of maskedKeys) {
    expect(prunable.has(key) || oversized.has(key), `masked ${key} is protected`).toBe(true);
  }
  expect(result.maskedCount).toBe(maskedKeys.length);
  // ... an oversized one always, the prunable batch all or nothing (the store never fails here;
  // only outputs whose masking would not clearly pay may be left, so check the plain bulky ones).
  const batchMasked = maskedKeys.some((key) => prunable.has(key));
  for (const key of [...oversized, ...(batchMasked ? prunable : [])]) {
    const [i, j] = key.split(':').map(Number) as [number, number];
    const r = (input[i]?.parts?.[j] as Part).functionResponse!.response as Obj;
    const keys = Object.keys(r);
    const plainBulky =
      keys.length === 1 && typeof r['output'] === 'string' && (tokens.get(key) ?? 0) >= 6_000;
    if (plainBulky && !maskedKeys.includes(key)) {
      throw new Error(
        `bulky ${oversized.has(key) ? 'oversized' : 'prunable'} output ${key} (${tokens.get(key)} tokens) left unmasked: ${JSON.stringify(result.failures)}`,
      );
    }
  }
  if (maskedKeys.length === 0) same(output, input, 'history with nothing masked');

  // Estimated tokens never increase.
  expect(estimatedTokens(output)).toBeLessThanOrEqual(estimatedTokens(input));
  expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
}

/** One run of the main property. */
async function passProperty(
  input: Content[],
  settingsValue: ToolOutputMaskingSettings,
  cacheLikelyCold: boolean,
  place: { projectTempDir: string; sessionId: string },
): Promise<void> {
  const { fsm, config, host, service } = setup(settingsValue, place);
  const directory = sessionDirectory(place.projectTempDir, place.sessionId);
  const before = fingerprint(input);
  const identity = shallowSnapshot(input);
  const options = { cacheLikelyCold };

  const pass = service();
  const result = await pass.mask(input, host, options);

  // Input untouched, deep and at every level the pass works on.
  sameSnapshot(shallowSnapshot(input), identity, 'input');
  same(fingerprint(input), before, 'input fingerprint (the pass mutated its input)');
  await checkPass(input, result, config, fsm, directory, cacheLikelyCold);
  const files = listFiles(fsm, place.projectTempDir);
  // Files 0600 in 0700 folders, all inside the session folder, no temporary leftovers.
  for (const file of files) {
    expect(path.dirname(file)).toBe(path.resolve(directory));
    expect(path.basename(file).startsWith('.')).toBe(false);
    expect(Number(fsm.statSync(file).mode) & 0o777).toBe(0o600);
  }
  if (files.length > 0) {
    for (const dir of [directory, path.dirname(directory)]) {
      expect(Number(fsm.statSync(dir).mode) & 0o777).toBe(0o700);
    }
  }
  expect(new Set(files)).toEqual(new Set(result.offloaded.map((item) => item.filePath)));

  // Idempotent: the same service, and a fresh one on a structured clone whose host tells it
  // which responses are its snippets (a gateway restoring its own log).
  const again = await pass.mask(result.newHistory, host, options);
  same(again.newHistory, result.newHistory, 'second pass (not idempotent)');
  expect(again.maskedCount).toBe(0);
  const clone = structuredClone(result.newHistory);
  const fresh = service();
  for (const index of result.changedIndices) {
    ((clone[index] as Content).parts ?? []).forEach((part, j) => {
      if (result.newHistory[index]?.parts?.[j] !== input[index]?.parts?.[j]) {
        fresh.markMasked(part.functionResponse!.response as object);
      }
    });
  }
  const resumed = await fresh.mask(clone, host, options);
  same(resumed.newHistory, clone, 'second pass by a fresh service told of its snippets');

  // Repeating the pass on the original (the host lost the result in a crash) gives the
  // same history and reuses the files: no duplicates, no orphans.
  const repeated = await service().mask(input, host, options);
  same(
    fingerprint(repeated.newHistory),
    fingerprint(result.newHistory),
    'the pass repeated on the original',
  );
  expect(listFiles(fsm, place.projectTempDir)).toEqual(files);
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('masking pass properties (fast-check)', () => {
  it('keeps structure, masks only targets, saves round-tripping files and is idempotent', async () => {
    await fc.assert(
      fc.asyncProperty(history, settings, fc.boolean(), hostPlace, passProperty),
      // A failure on these large inputs shrinks slowly: bound the whole run.
      { ...runs(700), interruptAfterTimeLimit: 60_000 },
    );
  }, 120_000);

  it('every snippet toolmask writes is recognised as masked, whatever its fields', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.tuple(fc.constantFrom('/', '/tmp/', 'C:\\x\\'), text(80)).map(([a, b]) => a + b),
        text(400),
        (lines, bytes, filePath, preview) => {
          const output = formatMaskedSnippet({
            lines,
            bytes,
            filePath,
            preview,
          });
          expect(isMaskedResponse({ output })).toBe(true);
          const parsed = parseMaskedSnippet(output);
          expect(parsed?.lines).toBe(lines);
          expect(parsed?.bytes).toBe(bytes);
          if (!/[\r\n]/.test(filePath)) expect(parsed?.filePath).toBe(filePath);
          // Anything more, or anything less, is an ordinary output.
          expect(isMaskedResponse({ output, extra: 1 })).toBe(false);
          expect(isMaskedResponse({ output: `${output}\n` })).toBe(false);
          expect(isMaskedResponse({ output: `x${output}` })).toBe(false);
          expect(isMaskedResponse({ output: output.slice(0, -1) })).toBe(false);
        },
      ),
      runs(1_000),
    );
  });

  it('an output that merely quotes the tag is never taken for a snippet', () => {
    fc.assert(
      fc.property(quotingTag, text(100), (quoted, extra) => {
        expect(isMaskedResponse(quoted)).toBe(false);
        expect(isMaskedResponse({ output: `${extra}<${MASKED_TAG} ${extra}` })).toBe(false);
      }),
      runs(300),
    );
  });

  it('file and folder names never leave the session folder, whatever the tool, id or session', () => {
    const component = fc.oneof(
      text(80),
      fc.string({ unit: 'binary', maxLength: 5_000 }),
      fc.constantFrom<unknown>(
        '..',
        '.',
        '../../x',
        '/etc/passwd',
        'C:\\x',
        '\\\\server\\share',
        'a\u0000b',
        'CON',
        'nul',
        'COM1',
        'LPT9',
        'x'.repeat(100_000),
        undefined,
        null,
        12,
        {},
      ),
    );
    fc.assert(
      fc.property(component, component, component, text(50), (tool, id, session, body) => {
        const root = '/p';
        const directory = sessionDirectory(root, session);
        expect(path.dirname(path.dirname(directory))).toBe(root);
        expect(path.basename(path.dirname(directory))).toBe(TOOL_OUTPUTS_DIR);
        expect(path.basename(directory)).toMatch(/^session-[A-Za-z0-9_-]{1,64}$/);
        const name = outputFileName(tool, id, body);
        expect(name).toMatch(/^[A-Za-z0-9_-]{1,49}\.[A-Za-z0-9_-]{1,49}\.[0-9a-f]{16}\.txt$/);
        expect(name.length).toBeLessThanOrEqual(48 + 1 + 48 + 1 + 16 + 4);
        expect(path.dirname(path.resolve(directory, name))).toBe(directory);
        expect(path.win32.basename(name)).toBe(name);
        // Windows-reserved device names are reserved with any extension; ours never is one.
        expect(name.split('.')[0]).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/i);
      }),
      runs(2_000),
    );
  });
});
