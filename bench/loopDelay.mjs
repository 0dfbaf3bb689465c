/**
 * Preloaded into a gateway by a bench (`node --import bench/loopDelay.mjs`): records the gateway's
 * own event-loop delay (perf_hooks, 10 ms resolution) and, when the process exits, writes its
 * p50, p99 and max in milliseconds since the last SIGUSR2 as JSON to the file BENCH_LOOP_DELAY_FILE names. That is how long
 * the gateway itself kept any request (`/healthz` included) from being looked at, with nothing of
 * the prober's own waiting in it.
 */
import * as fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_DELAY_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // The bench sends SIGUSR2 when its load starts: the gateway's start (loading its modules) is no
  // request being held.
  process.on('SIGUSR2', () => delay.reset());
  process.on('exit', () => {
    const ms = (nanoseconds) => nanoseconds / 1e6;
    fs.writeFileSync(
      file,
      JSON.stringify({
        p50: ms(delay.percentile(50)),
        p99: ms(delay.percentile(99)),
        max: ms(delay.max),
      }),
    );
  });
}
