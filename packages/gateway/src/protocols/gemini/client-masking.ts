/**
 * gemini-cli's own output masking must not fight with the gateway's: two passes rewriting the
 * same history at different moments would break the provider's prefix cache twice. The 0.61.0 CLI
 * ignores its masking settings; its thresholds come from experiment flags. For Login with Google
 * (Code Assist), the flags come from `v1internal:listExperiments`, which passes through the gateway:
 * the gateway sets the two thresholds out of reach there. (`toolmask gemini` does the same for the
 * other auth types with a `GEMINI_EXP` file.)
 */
export const MASKING_PROTECTION_THRESHOLD_FLAG = 45758817;
export const MASKING_PRUNABLE_THRESHOLD_FLAG = 45758818;
export const OUT_OF_REACH = '9007199254740991';

export const CLIENT_MASKING_OFF_FLAGS = [
  { flagId: MASKING_PROTECTION_THRESHOLD_FLAG, intValue: OUT_OF_REACH },
  { flagId: MASKING_PRUNABLE_THRESHOLD_FLAG, intValue: OUT_OF_REACH },
] as const;

/** A listExperiments answer with the client's masking thresholds out of reach. */
export function withClientMaskingOff(answer: unknown): unknown {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return answer;
  const record = answer as Record<string, unknown>;
  const ours = new Set<number>(CLIENT_MASKING_OFF_FLAGS.map((flag) => flag.flagId));
  const flags = Array.isArray(record['flags']) ? (record['flags'] as unknown[]) : [];
  return {
    ...record,
    flags: [
      ...flags.filter((flag) => !ours.has((flag as { flagId?: number } | null)?.flagId ?? -1)),
      ...CLIENT_MASKING_OFF_FLAGS,
    ],
  };
}
