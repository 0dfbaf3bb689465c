/**
 * Where full tool outputs go: one folder per session under `<projectTempDir>/tool-outputs/`.
 *
 * Guarantees (see docs/reliability.md):
 * - durable before visible: the text is written to a temporary name in the same folder, synced,
 *   then renamed, so a final name never holds a partial file;
 * - content-addressed: the name carries a hash of the text, so saving the same output again
 *   reuses the file (no duplicates after a retried or repeated pass);
 * - private: folders 0700, files 0600; names built only from sanitized, length-bounded parts;
 *   a symlink planted as a folder is refused, one planted at a final name is replaced, never followed.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import * as path from 'node:path';

export const TOOL_OUTPUTS_DIR = 'tool-outputs';

/** The subset of `node:fs` the store uses; `memfs` provides it too (for tests). */
export type StoreFileSystem = Pick<typeof nodeFs, 'promises' | 'constants'>;

export interface ToolOutputStore {
  /** Saves `text` durably under `directory/fileName`; returns the absolute path. */
  save(directory: string, fileName: string, text: string): Promise<string>;
}

const MAX_NAME_COMPONENT = 48;

/** Keeps `[A-Za-z0-9_-]`, bounded in length; never empty, never a dot name. */
export function sanitizeNameComponent(value: unknown, fallback: string): string {
  const text = typeof value === 'string' ? value : '';
  const cleaned = text.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, MAX_NAME_COMPONENT);
  return cleaned.replace(/_+/g, '_') || fallback;
}

export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * `<tool>_<callId>_<hash16>.txt`. The hash makes it content-addressed; tool and call id only help
 * a person find a file. Sanitizing removes separators, dots and NUL, so the name cannot leave the
 * folder, and the appended hash keeps it from ever equalling a Windows-reserved name such as `CON`.
 */
export function outputFileName(toolName: unknown, callId: unknown, text: string): string {
  const tool = sanitizeNameComponent(toolName, 'tool');
  const id = sanitizeNameComponent(callId, 'call');
  return `${tool}_${id}_${hashText(text).slice(0, 16)}.txt`;
}

/** `session-<id>`, sanitized like file names so a strange session id cannot escape either. */
export function sessionDirectory(projectTempDir: string, sessionId: unknown): string {
  const session = sanitizeNameComponent(sessionId, 'unknown').slice(0, 64);
  return path.join(projectTempDir, TOOL_OUTPUTS_DIR, `session-${session}`);
}

class StoreError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface FileToolOutputStoreOptions {
  fs?: StoreFileSystem;
  /** Skip fsync (tests on memfs only; real hosts always sync). */
  sync?: boolean;
}

export function createFileToolOutputStore(
  options: FileToolOutputStoreOptions = {},
): ToolOutputStore {
  const fs = options.fs ?? nodeFs;
  const sync = options.sync ?? true;
  const { promises } = fs;

  /** Creates the folder 0700 if needed and refuses one that is a symlink or not a folder. */
  async function ensurePrivateDirectory(directory: string): Promise<void> {
    await promises.mkdir(directory, { recursive: true, mode: 0o700 });
    const stats = await promises.lstat(directory);
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new StoreError(`${directory} is not a plain directory (symlink refused)`, 'ENOTDIR');
    }
    if ((Number(stats.mode) & 0o077) !== 0) await promises.chmod(directory, 0o700);
  }

  async function existingCopy(finalPath: string, byteLength: number): Promise<boolean> {
    try {
      const stats = await promises.lstat(finalPath);
      return stats.isFile() && !stats.isSymbolicLink() && Number(stats.size) === byteLength;
    } catch {
      return false;
    }
  }

  return {
    async save(directory, fileName, text) {
      if (fileName !== path.basename(fileName) || fileName.startsWith('.')) {
        throw new StoreError(`refusing file name ${JSON.stringify(fileName)}`, 'EINVAL');
      }
      await ensurePrivateDirectory(path.dirname(directory));
      await ensurePrivateDirectory(directory);
      const finalPath = path.resolve(directory, fileName);
      const data = Buffer.from(text, 'utf8');
      // Content-addressed: the same name means the same text (the hash is in the name).
      if (await existingCopy(finalPath, data.length)) return finalPath;

      const temporaryPath = path.join(
        directory,
        `.${fileName}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
      );
      // 'wx' = O_CREAT|O_EXCL: never opens an existing file or follows a planted symlink.
      const handle = await promises.open(temporaryPath, 'wx', 0o600);
      try {
        await handle.writeFile(data);
        if (sync) await handle.sync();
      } catch (error) {
        await handle.close().catch(() => undefined);
        await promises.unlink(temporaryPath).catch(() => undefined);
        throw error;
      }
      await handle.close();
      try {
        // rename replaces a planted symlink itself; it never writes through it.
        await promises.rename(temporaryPath, finalPath);
      } catch (error) {
        await promises.unlink(temporaryPath).catch(() => undefined);
        throw error;
      }
      return finalPath;
    },
  };
}
