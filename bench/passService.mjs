/**
 * One masking pass implementation for a bench child: toolmask's (`ours`) or gemini-cli's own
 * (`gemini-cli`), each with its default settings, and the stand-in Config both read (what
 * gemini-cli's service and its telemetry call on it; usage statistics off).
 */
export async function createPassService(impl, { sessionId, projectTempDir }) {
  const host = {
    getSessionId: () => sessionId,
    storage: { getProjectTempDir: () => projectTempDir },
    getExperiments: () => undefined,
    getContentGeneratorConfig: () => undefined,
    isInteractive: () => false,
    getUsageStatisticsEnabled: () => false,
  };
  if (impl === 'ours') {
    const core = await import('@toolmask/core');
    const config = core.resolveToolOutputMaskingConfig();
    host.getToolOutputMaskingConfig = async () => config;
    return { host, service: new core.ToolOutputMaskingService({ telemetry: () => undefined }) };
  }
  const upstream =
    await import('@google/gemini-cli-core/dist/src/context/toolOutputMaskingService.js');
  host.getToolOutputMaskingConfig = async () => ({
    protectionThresholdTokens: 50_000,
    minPrunableThresholdTokens: 30_000,
    protectLatestTurn: true,
  });
  return { host, service: new upstream.ToolOutputMaskingService() };
}
