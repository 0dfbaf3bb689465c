/**
 * The attributes gemini-cli puts on every telemetry event and metric of a session, computed from
 * the host `Config` the way core computes them (core's own helper is not exported):
 * `session.id`, `installation.id` (where the installation id file exists), `interactive`, and,
 * when known, `auth_type` and `experiments.ids`.
 *
 * Two deliberate differences: the installation id file is only read, never created (creating it
 * is the host's business), and `user.email` is not attached (toolmask has no use for it).
 */
import * as fs from 'node:fs';
import type { Attributes } from '@opentelemetry/api';
import type { Config } from '@google/gemini-cli-core';
import { installationIdPath } from '../config/paths.js';

function readInstallationId(): string | undefined {
  try {
    const id = fs.readFileSync(installationIdPath(), 'utf8').trim();
    return id || undefined;
  } catch {
    return undefined;
  }
}

export type CommonAttributesSource = Pick<
  Config,
  'getSessionId' | 'isInteractive' | 'getContentGeneratorConfig' | 'getExperiments'
>;

/**
 * Returns a function computing the common attributes at call time (the session id can change
 * when a host starts a new chat). The installation id is read until found, then kept.
 */
export function hostCommonAttributes(config: CommonAttributesSource): () => Attributes {
  let installationId: string | undefined;
  return () => {
    installationId ??= readInstallationId();
    const attributes: Attributes = {
      'session.id': config.getSessionId(),
      interactive: config.isInteractive(),
    };
    if (installationId) attributes['installation.id'] = installationId;
    try {
      const authType = config.getContentGeneratorConfig()?.authType;
      if (authType) attributes['auth_type'] = authType;
      const experimentIds = config.getExperiments()?.experimentIds;
      if (experimentIds && experimentIds.length > 0) attributes['experiments.ids'] = experimentIds;
    } catch {
      // Optional attributes; a host Config without them is fine.
    }
    return attributes;
  };
}
