/**
 * The one layout every `SharedOutputStore` keeps (stores.ts): an output saved in
 * `<root>/tool-outputs/<conversation>/<file>` is stored and read back under its relative path
 * `tool-outputs/<conversation>/<file>`. Pure checks, no I/O: each store calls them before it
 * touches its backend, so a refused name never reaches a bucket, a key space or a folder.
 *
 * A conversation folder or file name is one plain name: not empty, no `/`, `\` or NUL, not
 * starting with a dot (so never `.`, `..`, or a hidden or temporary name of core's file store).
 * A directory must be written as an absolute path with no `..` segment, even one that would
 * resolve back inside root.
 */
import * as path from 'node:path';
import { ToolmaskError } from '@toolmask/core/errors';
import { TOOL_OUTPUTS_DIR } from '@toolmask/core/storage';

/**
 * A save or read a shared output store refuses or could not finish: `EINVAL`, a directory, name
 * or relative path outside the layout above (or a bad store option); `OUTSIDE`, a file that leads
 * out of its folder (a planted link); `NOT_A_FILE`, something other than a regular file where an
 * output should be; `TIMEOUT`, a request to the backend that took longer than its limit.
 */
export class SharedOutputError extends ToolmaskError<
  'EINVAL' | 'OUTSIDE' | 'NOT_A_FILE' | 'TIMEOUT'
> {}

/** File systems' usual limit for one name (bytes); S3 keys stay far below their 1024. */
const MAX_NAME_BYTES = 255;

export function isPlainName(name: string): boolean {
  return (
    name.length > 0 &&
    !name.startsWith('.') &&
    !/[/\\\0]/.test(name) &&
    Buffer.byteLength(name, 'utf8') <= MAX_NAME_BYTES
  );
}

/** An output's place: its conversation folder and file name. */
export interface OutputPlace {
  conversation: string;
  fileName: string;
}

/** `tool-outputs/<conversation>/<file>`, with `/` whatever the platform. */
export function relativePathOf(place: OutputPlace): string {
  return `${TOOL_OUTPUTS_DIR}/${place.conversation}/${place.fileName}`;
}

/** Refuses a root that is not an absolute path; returns it normalized. */
export function checkRoot(root: string): string {
  if (typeof root !== 'string' || !path.isAbsolute(root)) {
    throw new SharedOutputError('EINVAL', `output store root must be an absolute path: ${root}`);
  }
  return path.resolve(root);
}

/** Where `save(directory, fileName)` puts an output under `root`; throws `EINVAL` otherwise. */
export function placeOfSave(root: string, directory: string, fileName: string): OutputPlace {
  const refuse = (why: string): never => {
    throw new SharedOutputError(
      'EINVAL',
      `refusing to save ${JSON.stringify(fileName)} in ${JSON.stringify(directory)}: ${why}`,
    );
  };
  if (!isPlainName(fileName)) refuse('the file name is not one plain name');
  if (!path.isAbsolute(directory)) refuse('the directory is not an absolute path');
  if (directory.split(/[\\/]+/).includes('..')) refuse('the directory has a ".." segment');
  const segments = path.relative(root, path.resolve(directory)).split(path.sep);
  const conversation = segments[1] ?? '';
  if (segments.length !== 2 || segments[0] !== TOOL_OUTPUTS_DIR || !isPlainName(conversation)) {
    refuse(`outputs go in ${path.join(root, TOOL_OUTPUTS_DIR, '<conversation>')}`);
  }
  return { conversation, fileName };
}

/** The place a read's relative path names; throws `EINVAL` for anything but the layout. */
export function placeOfRead(relativePath: string): OutputPlace {
  const segments = typeof relativePath === 'string' ? relativePath.split('/') : [];
  const [folder, conversation = '', fileName = ''] = segments;
  if (
    segments.length !== 3 ||
    folder !== TOOL_OUTPUTS_DIR ||
    !isPlainName(conversation) ||
    !isPlainName(fileName)
  ) {
    throw new SharedOutputError(
      'EINVAL',
      `not an output path: ${JSON.stringify(relativePath)} (expected ${TOOL_OUTPUTS_DIR}/<conversation>/<file>)`,
    );
  }
  return { conversation, fileName };
}
