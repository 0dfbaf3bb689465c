/**
 * The paths a virtual key opens on a team gateway: the ones a coding agent needs on its API's
 * route, nothing else. A virtual key stands for the team's provider key, and the provider keeps
 * things for that key (the Gemini API's files and cached contents, OpenAI's and Anthropic's
 * files, batches and stored responses): had every path been open, Bob's virtual key would have
 * read what Alice uploaded or stored with hers. So a virtual key is swapped for the team's key
 * only for
 *
 * - the model calls the gateway masks, and their token counts: Gemini's `generateContent`,
 *   `streamGenerateContent` and `countTokens` (Gemini API, Vertex AI, Code Assist), OpenAI's chat
 *   completions and Responses (with Codex's `responses/compact`), Anthropic's messages and
 *   `messages/count_tokens`;
 * - the read-only model listings a client asks for before its first turn (`GET models`,
 *   `GET models/<id>`: Codex and Claude Code do);
 * - Code Assist's account calls gemini-cli makes before its first turn (`loadCodeAssist`,
 *   `retrieveUserQuota`, `listExperiments`), which read the account, not what anyone kept.
 *
 * Every other path with a virtual key is refused before anything is forwarded; a person's own
 * provider key goes anywhere, as it would without the gateway. Pure: a decision on the method
 * and the path the upstream would get (the launchers' prefix removed).
 */

/**
 * One path segment as the allowed paths write it: no `%` (an encoded `/` or `..` the provider's
 * front end may decode), no `\` (which a URL parser reads as `/`), never `.` or `..`.
 */
const SEGMENT = '(?!\\.\\.?(?:[/:]|$))[A-Za-z0-9._-]+';
const MODEL_METHODS = 'generateContent|streamGenerateContent|countTokens';
const MODEL_CALL = `(?:${MODEL_METHODS})`;
const VERTEX_MODELS = `/v1[a-z0-9]*/(?:projects/${SEGMENT}/locations/${SEGMENT}/)?publishers/google/models`;

/** By upstream: the paths open to a virtual key, for POST and for GET. */
const OPEN_PATHS: Readonly<Record<string, { post: RegExp; get?: RegExp }>> = {
  gemini: {
    post: new RegExp(`^/v1[a-z0-9]*/(?:tuned)?models/${SEGMENT}:${MODEL_CALL}$`),
    get: new RegExp(`^/v1[a-z0-9]*/models(?:/${SEGMENT})?$`),
  },
  vertex: {
    post: new RegExp(`^${VERTEX_MODELS}/${SEGMENT}:${MODEL_CALL}$`),
    get: new RegExp(`^${VERTEX_MODELS}(?:/${SEGMENT})?$`),
  },
  codeAssist: {
    post: new RegExp(
      `^/v1[a-z0-9]*internal:(?:${MODEL_METHODS}|loadCodeAssist|retrieveUserQuota|listExperiments)$`,
    ),
  },
  openai: {
    post: /^(?:\/v1)?\/(?:chat\/completions|responses|responses\/compact)$/,
    get: new RegExp(`^(?:/v1)?/models(?:/${SEGMENT})?$`),
  },
  anthropic: {
    post: /^\/v1\/messages(?:\/count_tokens)?$/,
    get: new RegExp(`^/v1/models(?:/${SEGMENT})?$`),
  },
};

/** Whether a virtual key may go upstream on `upstream` for `method` and `path` (query ignored). */
export function openToVirtualKeys(upstream: string, method: string, path: string): boolean {
  const open = OPEN_PATHS[upstream];
  if (!open) return false;
  const pathname = path.split('?')[0] ?? '';
  if (method === 'POST') return open.post.test(pathname);
  return method === 'GET' && open.get !== undefined && open.get.test(pathname);
}

/** How much of a refused path the answer repeats (the caller chose it). */
const SHOWN_PATH_CHARACTERS = 120;

/** What a virtual key on a closed path is told: the path, and what to use there instead. */
export function closedPathMessage(method: string, path: string): string {
  const pathname = path.split('?')[0] ?? '';
  const shown =
    pathname.length > SHOWN_PATH_CHARACTERS
      ? `${pathname.slice(0, SHOWN_PATH_CHARACTERS)}…`
      : pathname;
  return `${method} ${shown} is not open to virtual keys: a team gateway sends the team's key for model calls and model lists only (what the provider keeps for the team's key is no one person's); use your own provider key for this path`;
}
