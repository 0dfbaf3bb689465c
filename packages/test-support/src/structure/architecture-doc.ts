/**
 * The structural claims of docs/architecture.md, read from its text so that the architecture
 * claims test compares the doc with the tree (and not with a second copy of the doc):
 *
 * - each package's layer drawing: a heading `... (`<name>/src/`), in layers` and, in the first
 *   fenced block after it, one line per layer indented by exactly two spaces (`  pipeline/ ...`);
 *   deeper lines describe the layer above them and name its files;
 * - the public surface's counts: `` `@toolmask/<name>` exports N values and M types ``;
 * - the protocol folders, under the gateway drawing's `protocols/` line (`gemini/  codec.ts ...`).
 */

export interface LayerDrawing {
  /** The package's folder name (`gateway`). */
  packageName: string;
  /** The layers, top to bottom, as written (`index.ts`, `pipeline/`). */
  layers: string[];
  /** The file names each layer's description mentions (`handle-model-request.ts`). */
  filesNamed: Map<string, string[]>;
}

const DRAWING_HEADING = /^#{2,4} .*\(`([\w-]+)\/src\/`\).*in layers/;
const LAYER_LINE = /^ {2}(\S+?(?:\/|\.ts))(?:\s|$)/;
const FILE_NAME = /(?<![\w./-])([\w-]+(?:\.[\w-]+)*\.ts)\b/g;

export function layerDrawings(doc: string): LayerDrawing[] {
  const lines = doc.split('\n');
  const drawings: LayerDrawing[] = [];
  lines.forEach((line, at) => {
    const heading = DRAWING_HEADING.exec(line);
    if (!heading) return;
    const open = lines.findIndex((candidate, index) => index > at && candidate.startsWith('```'));
    const close = lines.findIndex(
      (candidate, index) => index > open && candidate.startsWith('```'),
    );
    if (open < 0 || close < 0) throw new Error(`no drawing after "${line}"`);
    const drawing: LayerDrawing = {
      packageName: heading[1] as string,
      layers: [],
      filesNamed: new Map(),
    };
    let current: string | undefined;
    for (const text of lines.slice(open + 1, close)) {
      const layer = LAYER_LINE.exec(text)?.[1];
      if (layer) {
        current = layer;
        drawing.layers.push(layer);
      }
      // The layer's own name is no file it names; the rest of its lines are.
      const described = layer ? text.slice(text.indexOf(layer) + layer.length) : text;
      if (current) {
        const named = [...described.matchAll(FILE_NAME)].map((match) => match[1] as string);
        drawing.filesNamed.set(current, [...(drawing.filesNamed.get(current) ?? []), ...named]);
      }
    }
    drawings.push(drawing);
  });
  return drawings;
}

/** `@toolmask/<name>` → the counts of values and types the doc states for its main entry. */
export function statedSurfaceCounts(doc: string): Map<string, { values: number; types: number }> {
  const counts = new Map<string, { values: number; types: number }>();
  for (const match of doc.matchAll(/`(@toolmask\/[\w-]+)` exports (\d+) values and (\d+) types/g)) {
    counts.set(match[1] as string, { values: Number(match[2]), types: Number(match[3]) });
  }
  return counts;
}

export interface ProtocolFolders {
  /** The protocol folders the drawing names (`gemini`, `openai-chat`, ...). */
  folders: string[];
  /** The files every protocol folder has: the first folder's line, when it names only files. */
  sharedFiles: string[];
  /** Each folder's files as its lines name them (the shared ones and its own). */
  filesNamed: Map<string, string[]>;
}

/** The protocol folders under the gateway drawing's `protocols/` line. */
export function protocolFolders(doc: string): ProtocolFolders {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => /^ {2}protocols\/\s/.test(line));
  if (start < 0) throw new Error('docs/architecture.md: no `protocols/` layer line');
  const result: ProtocolFolders = { folders: [], sharedFiles: [], filesNamed: new Map() };
  let current: string | undefined;
  let folderIndent = Infinity;
  for (const line of lines.slice(start + 1)) {
    if (LAYER_LINE.test(line) || line.startsWith('```')) break;
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    // A line left of the folders' ends the last folder's description (`protocols.ts lists them`).
    if (indent < folderIndent) current = undefined;
    const folder = /^\s+([\w-]+)\/\s+(.*)$/.exec(line);
    if (folder) {
      folderIndent = indent;
      current = folder[1] as string;
      result.folders.push(current);
      const rest = (folder[2] as string).trim().split(/\s+/);
      if (result.sharedFiles.length === 0 && rest.every((word) => /^[\w-]+\.ts$/.test(word))) {
        result.sharedFiles = rest;
      }
    }
    if (current) {
      const named = [...line.matchAll(FILE_NAME)].map((match) => match[1] as string);
      result.filesNamed.set(current, [...(result.filesNamed.get(current) ?? []), ...named]);
    }
  }
  return result;
}
