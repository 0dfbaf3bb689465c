/**
 * What an attack hands back: checks (each a condition and what it says), and notes (what was
 * measured). It HELD when every check held; the evidence names the checks that failed first.
 */
export class Evidence {
  constructor() {
    this.checks = [];
    this.notes = [];
  }

  /** A condition the property needs; `says` describes what was seen. */
  check(ok, says) {
    this.checks.push({ ok: Boolean(ok), says });
    return Boolean(ok);
  }

  note(says) {
    this.notes.push(says);
  }

  get held() {
    return this.checks.length > 0 && this.checks.every((check) => check.ok);
  }

  lines() {
    const failed = this.checks.filter((check) => !check.ok).map((check) => `✗ ${check.says}`);
    const held = this.checks.filter((check) => check.ok).map((check) => `✓ ${check.says}`);
    return [...failed, ...held, ...this.notes.map((note) => `· ${note}`)];
  }
}

/** Counts of statuses, as `401×3 403×2`. */
export function statusCounts(statuses) {
  const counts = new Map();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${status}×${count}`).join(' ');
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
