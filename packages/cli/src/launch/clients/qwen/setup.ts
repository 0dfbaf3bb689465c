/**
 * `toolmask setup qwen`: the permanent alternative to `toolmask qwen`, for people who run a gateway
 * of their own and want their plain `qwen` to use it. It edits qwen's user settings
 * (`~/.qwen/settings.json`, or `$QWEN_HOME/settings.json`) and the `.env` in that folder
 * (setup/settings-and-env.ts), with the guarantees of every client's setup (setup/apply-plan.ts,
 * setup/undo-plan.ts):
 *
 * - `settings.json`: `mcpServers.toolmask`, the read-back tool (with the access secret: the file is
 *   left 0600); the session header with qwen's own session id (`${session_id}`, which qwen fills in
 *   only with `outboundCorrelation.allowDynamicHeaderValues`); qwen's microcompaction off (it
 *   clears old tool results for good at moments of its own, which would fight the gateway's
 *   masking).
 * - `.env`: `OPENAI_BASE_URL`, the gateway's OpenAI route. The person's own base URL is the
 *   gateway's `--openai-upstream` (the command's help says so).
 */
import { SESSION_HEADER } from '@toolmask/gateway/launch';
import type { SetupContext } from '../../setup/setup-context.js';
import type { ClientPlan } from '../../setup/setup-plan.js';
import { readSettingsAndEnv, settingsAndEnvPlan } from '../../setup/settings-and-env.js';
import { qwenDir, qwenMcpServer } from './config.js';

export async function planQwenSetup(context: SetupContext): Promise<ClientPlan> {
  const found = await readSettingsAndEnv(qwenDir(context.env));
  // Every check that can refuse is behind: the secret may be made now.
  const gateway = await context.gateway();
  return settingsAndEnvPlan(
    'qwen',
    found,
    {
      settings: [
        { path: ['mcpServers', 'toolmask'], value: qwenMcpServer(gateway) },
        {
          path: ['model', 'generationConfig', 'customHeaders', SESSION_HEADER],
          value: '${session_id}',
        },
        { path: ['outboundCorrelation', 'allowDynamicHeaderValues'], value: true },
        { path: ['context', 'clearContextOnIdle', 'toolResultsThresholdMinutes'], value: -1 },
        { path: ['context', 'clearContextOnIdle', 'toolResultsTotalCharsThreshold'], value: -1 },
      ],
      env: { OPENAI_BASE_URL: `${gateway.url}/openai/v1` },
    },
    { notes: [] },
    context.env,
  );
}
