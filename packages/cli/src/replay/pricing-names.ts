/**
 * The providers whose prompt-cache rules can price a replay (`--pricing`): names only, so that
 * the command's declaration reads them without loading core (pricing.ts has the prices).
 */
export const PRICING_NAMES = ['anthropic', 'openai', 'gemini'] as const;
export type PricingName = (typeof PRICING_NAMES)[number];

export function isPricingName(value: string): value is PricingName {
  return (PRICING_NAMES as readonly string[]).includes(value);
}
