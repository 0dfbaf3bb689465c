/**
 * A Vitest reporter that ends the run with one plain line, `N passed, N failed, N skipped`, which
 * CI systems that do not parse Vitest's own summary can read. Used beside the default reporter.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
      // A file that failed to load has no tests but must count as a failure.
      if (testModule.state() === 'failed' && testModule.children.size === 0) counts.failed++;
    }
    console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
