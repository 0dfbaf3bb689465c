#!/usr/bin/env node
/**
 * The control of bench/concurrentBodies.mjs: a Node.js server in a process of its own that does
 * nothing but answer `ok`. Asked by the same prober as the gateway while the gateway works, its
 * latency is what the machine alone adds (the scheduler shares 2 vCPUs among the clients, the
 * gateway, the fake upstream and the prober): the floor under the gateway's own.
 */
import * as http from 'node:http';
import { serveOnLoopback } from './serveOnLoopback.mjs';

serveOnLoopback(http.createServer((request, response) => response.end('ok')));
