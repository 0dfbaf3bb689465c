/**
 * The `model` label of the gateway's series, bounded in number as Prometheus's own guidance asks
 * (issue 33, finding 1): a name outside the edge's bounds is `other` already
 * (server/caller-values.ts), and past the first `MAX_MODEL_LABELS` distinct names every new one
 * is `other` too, so a caller who makes up names adds at most one series per metric.
 */
import { boundedModel, OTHER } from '../server/caller-values.js';

/** Distinct model labels a gateway shows (a team uses a handful; each adds series per metric). */
export const MAX_MODEL_LABELS = 32;

export class ModelLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly limit = MAX_MODEL_LABELS) {}

  /** The label `model` is counted under. */
  label(model: string): string {
    const bounded = boundedModel(model);
    if (this.seen.has(bounded)) return bounded;
    if (this.seen.size >= this.limit) return OTHER;
    this.seen.add(bounded);
    return bounded;
  }
}
