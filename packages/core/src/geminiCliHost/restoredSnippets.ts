/**
 * Snippets a resumed history brings back. Core records masked parts on some occasions (a request
 * whose giant output the guard offloaded is recorded as sent; it syncs the live history after a
 * rolled-back stream or a compression), so a session resumed from its recording can hold snippets
 * this installation wrote in an earlier process. The service only trusts its own record of what
 * it produced; like any host that restores its own snippets, the installation records these with
 * `markMasked`, so they are neither counted nor masked again.
 *
 * Only snippets that are provably toolmask's own: the whole response is a snippet, small (toolmask
 * never writes one over `MAX_SNIPPET_CHARS`: previews are a few lines and capped sections), whose
 * file is in this project's tool-outputs folder and has exactly the size the snippet states. A
 * tool output shaped like a snippet fails these checks and counts as what it is.
 *
 * A client's history is inspected when it is first seen or was replaced (its first part is
 * another object): that is when restored parts arrive; afterwards new parts come from tools.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Content } from '../services/maskingTypes.js';
import type { ToolOutputMaskingService } from '../services/toolOutputMaskingService.js';
import { parseMaskedSnippet } from '../services/maskedSnippet.js';
import { outputsRoot, sessionIdOfFolder } from '../storage/outputLayout.js';
import { isPlainObject } from '../utils/safeCall.js';

/** The largest snippet toolmask writes is a few KB; anything longer is not one of ours. */
export const MAX_SNIPPET_CHARS = 32 * 1024;

function isOurs(response: Record<string, unknown>, projectTempDir: string): boolean {
  const keys = Object.keys(response);
  const output = response['output'];
  if (keys.length !== 1 || typeof output !== 'string' || output.length > MAX_SNIPPET_CHARS) {
    return false;
  }
  const snippet = parseMaskedSnippet(output);
  if (!snippet) return false;
  const folder = path.dirname(snippet.filePath);
  if (
    path.dirname(folder) !== path.resolve(outputsRoot(projectTempDir)) ||
    sessionIdOfFolder(path.basename(folder)) === undefined
  ) {
    return false;
  }
  try {
    const stats = fs.lstatSync(snippet.filePath);
    return stats.isFile() && stats.size === snippet.bytes;
  } catch {
    return false;
  }
}

export class RestoredSnippets {
  /** Per client: the first part of the history last inspected. */
  private readonly inspected = new WeakMap<object, unknown>();

  constructor(
    private readonly service: Pick<ToolOutputMaskingService, 'markMasked'>,
    private readonly projectTempDir: () => string,
  ) {}

  /** Records the client's restored snippets, when its history is new. Never throws. */
  inspect(client: object, history: readonly Content[]): void {
    try {
      const first = history[0]?.parts?.[0];
      if (first !== undefined && this.inspected.get(client) === first) return;
      this.inspected.set(client, first);
      const projectTempDir = this.projectTempDir();
      for (const content of history) {
        for (const part of content?.parts ?? []) {
          const response: unknown = part?.functionResponse?.response;
          if (isPlainObject(response) && isOurs(response, projectTempDir)) {
            this.service.markMasked(response);
          }
        }
      }
    } catch {
      // A history that cannot be read is the pass's to report.
    }
  }
}
