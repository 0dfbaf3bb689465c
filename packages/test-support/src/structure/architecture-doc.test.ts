/**
 * The architecture claims on small docs and trees held in memory: each claim fails on a doc or a
 * tree that disagree, and the doc's drawings, counts and protocol folders are read as written.
 */
import { describe, expect, it } from 'vitest';
import {
  launchClientMismatches,
  layerOrderMismatches,
  namedFileMismatches,
  protocolMismatches,
  surfaceCountMismatches,
} from './architecture-claims.js';
import { layerDrawings, protocolFolders } from './architecture-doc.js';
import { memoryTree } from './source-tree.js';

const DOC = [
  '# Architecture',
  '',
  '`@toolmask/core` exports 2 values and 1 types by name.',
  '',
  '### The gateway (`gateway/src/`), in layers',
  '',
  '```',
  '  index.ts            the entry (publicApi.test.ts pins it)',
  '  pipeline/           one request:',
  '                        handle-model-request.ts  upstream, mask, forward',
  '  protocols/          one folder per protocol, the same files in each:',
  '                        gemini/       codec.ts routes.ts',
  '                        openai-chat/  the same two, and session.ts (its',
  '                          conversation)',
  '                      protocols.ts lists them',
  '  errors.ts           the errors',
  '```',
  '',
].join('\n');

const TREE = {
  'docs/architecture.md': DOC,
  'packages/gateway/src/index.ts': '',
  'packages/gateway/src/publicApi.test.ts': '',
  'packages/gateway/src/pipeline/handle-model-request.ts': '',
  'packages/gateway/src/protocols/protocols.ts': '',
  'packages/gateway/src/protocols/gemini/codec.ts': '',
  'packages/gateway/src/protocols/gemini/routes.ts': '',
  'packages/gateway/src/protocols/gemini/codec.test.ts': '',
  'packages/gateway/src/protocols/openai-chat/codec.ts': '',
  'packages/gateway/src/protocols/openai-chat/routes.ts': '',
  'packages/gateway/src/protocols/openai-chat/session.ts': '',
  'packages/gateway/src/errors.ts': '',
  'packages/core/src/publicApi.test.ts':
    "const PUBLIC_RUNTIME_NAMES = ['a', 'b'];\nconst PUBLIC_TYPE_NAMES = ['C'];\n",
};

/** TREE with `changes` applied (a file set to undefined is removed). */
function treeWith(changes: Record<string, string | undefined>) {
  const files: Record<string, string> = {};
  for (const [file, text] of Object.entries({ ...TREE, ...changes })) {
    if (text !== undefined) files[file] = text;
  }
  return memoryTree(files);
}

describe('reading docs/architecture.md', () => {
  it('reads a drawing: its layers in order and the files each names', () => {
    const [drawing] = layerDrawings(DOC);
    expect(drawing?.packageName).toBe('gateway');
    expect(drawing?.layers).toEqual(['index.ts', 'pipeline/', 'protocols/', 'errors.ts']);
    expect(drawing?.filesNamed.get('pipeline/')).toEqual(['handle-model-request.ts']);
  });

  it('reads the protocol folders and the files every one has', () => {
    const folders = protocolFolders(DOC);
    expect(folders.folders).toEqual(['gemini', 'openai-chat']);
    expect(folders.sharedFiles).toEqual(['codec.ts', 'routes.ts']);
    expect(folders.filesNamed.get('openai-chat')).toEqual(['session.ts']);
  });
});

describe('the architecture claims', () => {
  it('hold for a tree that matches the doc', () => {
    const tree = treeWith({});
    const tables = { gateway: ['test-utils/', 'index.ts', 'pipeline/', 'protocols/', 'errors.ts'] };
    expect(layerOrderMismatches(tree, tables)).toEqual([]);
    expect(namedFileMismatches(tree)).toEqual([]);
    expect(protocolMismatches(tree)).toEqual([]);
    expect(surfaceCountMismatches(tree)).toEqual([]);
    expect(launchClientMismatches(tree)).toEqual([]);
  });

  it('fail on a layer order other than the table, or a package the doc does not draw', () => {
    const tables = { gateway: ['index.ts', 'protocols/', 'pipeline/', 'errors.ts'], cli: ['a/'] };
    expect(layerOrderMismatches(treeWith({}), tables)).toEqual([
      'gateway: the doc draws index.ts > pipeline/ > protocols/ > errors.ts; ' +
        'LAYERS has index.ts > protocols/ > pipeline/ > errors.ts',
      'docs/architecture.md draws no layers for cli/src/',
    ]);
  });

  it('fail on a file the drawing names that is not in its layer', () => {
    const tree = treeWith({
      'packages/gateway/src/pipeline/handle-model-request.ts': undefined,
      'packages/gateway/src/body/handle-model-request.ts': '',
    });
    expect(namedFileMismatches(tree)).toEqual([
      'pipeline/ names handle-model-request.ts, not found in packages/gateway/src/pipeline/',
    ]);
  });

  it('fail on a protocol folder without a shared file, and on one the doc does not name', () => {
    const tree = treeWith({
      'packages/gateway/src/protocols/gemini/routes.ts': undefined,
      'packages/gateway/src/protocols/openai-chat/session.ts': undefined,
      'packages/gateway/src/protocols/anthropic/codec.ts': '',
      'packages/gateway/src/protocols/anthropic/routes.ts': '',
    });
    expect(protocolMismatches(tree)).toEqual([
      'protocol folders: the doc names gemini, openai-chat; ' +
        'packages/gateway/src/protocols/ has anthropic, gemini, openai-chat',
      'packages/gateway/src/protocols/gemini/ has no routes.ts',
      'packages/gateway/src/protocols/openai-chat/ has no session.ts',
    ]);
  });

  it('fail on counts other than the pinned lists', () => {
    const tree = treeWith({
      'packages/core/src/publicApi.test.ts':
        "const PUBLIC_RUNTIME_NAMES = ['a', 'b', 'c'];\nconst PUBLIC_TYPE_NAMES = ['C'];\n",
    });
    expect(surfaceCountMismatches(tree)).toEqual([
      '@toolmask/core: the doc says 2 values, packages/core/src/publicApi.test.ts pins 3',
    ]);
  });

  it('fail on a launch client folder whose files differ from the others', () => {
    const clients = 'packages/cli/src/launch/clients';
    const tree = treeWith({
      [`${clients}/gemini/launch.ts`]: '',
      [`${clients}/gemini/setup.ts`]: '',
      [`${clients}/gemini/setup.test.ts`]: '',
      [`${clients}/qwen/launch.ts`]: '',
      [`${clients}/qwen/setup.ts`]: '',
      [`${clients}/codex/launch.ts`]: '',
    });
    expect(launchClientMismatches(tree)).toEqual([
      `${clients}/codex/ has no setup.ts (another client has)`,
    ]);
  });
});
