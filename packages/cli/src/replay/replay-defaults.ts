/** The replay's defaults that its command declares (read without loading the engine). */

/** The price of a cached token relative to an uncached one (`--cache-discount`). */
export const DEFAULT_CACHE_DISCOUNT = 0.1;
