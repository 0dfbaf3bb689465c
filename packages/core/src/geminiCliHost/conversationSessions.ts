/**
 * The session ids one conversation has had. gemini-cli-core can give a running conversation a new
 * session id (`config.rotateSessionId(...)`, which its fallback handler calls on `retry_always`):
 * the history goes on, its snippets point into the earlier session's folder, and new outputs go
 * into the new one. The installation observes every id its host reports, so the read-back tool
 * can open the earlier folders (by path or by call id) and retention keeps them.
 */
export class ConversationSessions {
  private readonly ids: string[] = [];

  /** Records `id` (once, in the order first seen). */
  observe(id: string): void {
    if (typeof id === 'string' && !this.ids.includes(id)) this.ids.push(id);
  }

  /** Every id seen, oldest first. */
  all(): readonly string[] {
    return this.ids;
  }

  /** The ids seen besides `current`, oldest first. */
  earlierThan(current: string): string[] {
    return this.ids.filter((id) => id !== current);
  }
}
