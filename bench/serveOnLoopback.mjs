/**
 * Starts a bench server process's `server` on a free loopback port, prints `listening on URL`
 * (what bench/gatewayBench.mjs waits for), and closes it on SIGTERM.
 */
export function serveOnLoopback(server) {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
