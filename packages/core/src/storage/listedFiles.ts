/**
 * The regular files among names listed in a folder, as a search lists outputs: the name it shows
 * (`shownAs`), when it was written and its size. A name that vanished, or is not a regular file
 * (a link, a folder), is left out; `lstat` never follows a link.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface ListedFile {
  name: string;
  mtimeMs: number;
  bytes: number;
}

export async function listedFiles(
  folder: string,
  names: readonly string[],
  shownAs: (name: string) => string,
): Promise<ListedFile[]> {
  const stats = await Promise.all(
    names.map((name) => fs.lstat(path.join(folder, name)).catch(() => undefined)),
  );
  return names.flatMap((name, index) => {
    const stat = stats[index];
    return stat?.isFile() ? [{ name: shownAs(name), mtimeMs: stat.mtimeMs, bytes: stat.size }] : [];
  });
}
