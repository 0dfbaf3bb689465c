/**
 * The files a Codex/OpenCode patch (`*** Begin Patch` … `*** End Patch`) adds, updates, deletes or
 * moves to, read from its marker lines in one linear scan; a patch longer than `MAX_PATCH_CHARS`
 * names no file (its writes go unnoticed, which only leaves outputs unmasked).
 */
import { normalizePath } from './fileRanges.js';

/** Longest patch text scanned for its file names (a linear scan of its lines). */
const MAX_PATCH_CHARS = 1 << 20;

/** Files a Codex/OpenCode patch adds, updates, deletes or moves to. */
export function patchFiles(patch: string, directory: string | undefined): string[] {
  if (patch.length > MAX_PATCH_CHARS) return [];
  const files: string[] = [];
  const markers = ['*** Add File: ', '*** Update File: ', '*** Delete File: ', '*** Move to: '];
  for (let start = 0; start < patch.length;) {
    const end = patch.indexOf('\n', start);
    const lineEnd = end < 0 ? patch.length : end;
    if (patch.startsWith('*** ', start)) {
      const marker = markers.find((candidate) => patch.startsWith(candidate, start));
      if (marker) {
        const file = normalizePath(patch.slice(start + marker.length, lineEnd).trim(), directory);
        if (file) files.push(file);
      }
    }
    start = lineEnd + 1;
  }
  return files;
}
