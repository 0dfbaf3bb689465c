/**
 * The auth type gemini-cli 0.61.0 will use, as its own selection does: `security.auth.selectedType`
 * in the settings first; with none chosen, the environment (its `.env` included) decides:
 * `GOOGLE_GENAI_USE_GCA=true` is Login with Google, `GOOGLE_GENAI_USE_VERTEXAI=true` Vertex AI,
 * `GEMINI_API_KEY` the API key. (A `GOOGLE_GEMINI_BASE_URL` with none chosen makes gemini pick a
 * "gateway" auth type its CLI refuses, which is why whoever sets that variable also chooses the
 * auth type.)
 */
import { valueAt } from './jsonc-settings.js';

export type GeminiAuth =
  'gemini-api-key' | 'vertex-ai' | 'oauth-personal' | 'compute-default-credentials' | 'cloud-shell';

const KNOWN_AUTH = new Set<string>([
  'gemini-api-key',
  'vertex-ai',
  'oauth-personal',
  'compute-default-credentials',
  'cloud-shell',
]);

export function geminiAuthOf(
  settings: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  dotEnv: Readonly<Record<string, string>>,
): { auth?: GeminiAuth; chosenBySettings: boolean } {
  const selected = valueAt(settings, ['security', 'auth', 'selectedType']);
  if (typeof selected === 'string' && KNOWN_AUTH.has(selected)) {
    return { auth: selected as GeminiAuth, chosenBySettings: true };
  }
  const get = (name: string) => env[name] ?? dotEnv[name];
  if (get('GOOGLE_GENAI_USE_GCA') === 'true') {
    return { auth: 'oauth-personal', chosenBySettings: false };
  }
  if (get('GOOGLE_GENAI_USE_VERTEXAI') === 'true') {
    return { auth: 'vertex-ai', chosenBySettings: false };
  }
  if (get('GEMINI_API_KEY')) return { auth: 'gemini-api-key', chosenBySettings: false };
  return { chosenBySettings: false };
}
