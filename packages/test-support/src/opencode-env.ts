/**
 * The environment a test runs the real `opencode` in: a home and a project of the test's own, the
 * repository's binaries first on PATH, and nothing that reaches the network. Without these,
 * opencode in a fresh home fetches its model list (about 30 s without the network), checks for
 * updates, and installs `@opencode-ai/plugin` from registry.npmjs.org in the background.
 */
import * as path from 'node:path';
import { REPO_BIN } from '@toolmask/test-support/run-toolmask';

export function opencodeOfflineEnv(home: string, project: string): Record<string, string> {
  return {
    PATH: `${REPO_BIN}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    HOME: home,
    // opencode takes its working folder from PWD.
    PWD: project,
    NO_COLOR: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    // The background install runs npm with npm's own settings: offline, it fails at once
    // instead of holding a connection open.
    npm_config_offline: 'true',
  };
}
