// grpc-js server interceptors of every fleetls gRPC server (the agent's and the Fleet API's):
// the bearer-token check and the per-call metrics.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Observer } from '@fleetls/core';
import * as grpc from '@grpc/grpc-js';

const HEALTH_PREFIX = '/grpc.health.v1.Health/';

/** The digest `tokenInterceptor` compares: of the whole header value, `Bearer TOKEN`. */
export function tokenDigest(token: string | Buffer): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Bearer-token check in constant time (the digests have equal length whatever the input);
 * `expected()` is asked on every call, so a reloaded token applies to the next one.
 * Health checks pass without a token.
 */
export function tokenInterceptor(
  expected: () => Buffer,
  onRefused?: (rpc: string, call: grpc.ServerInterceptingCallInterface, why: string) => void,
): grpc.ServerInterceptor {
  return (method, call) =>
    new grpc.ServerInterceptingCall(
      call,
      new grpc.ResponderBuilder()
        .withStart((next) => {
          next(
            new grpc.ServerListenerBuilder()
              .withOnReceiveMetadata((md, nextMd) => {
                if (method.path.startsWith(HEALTH_PREFIX)) {
                  nextMd(md);
                  return;
                }
                const got = md.get('authorization')[0];
                if (got !== undefined && timingSafeEqual(tokenDigest(String(got)), expected())) {
                  nextMd(md);
                } else {
                  const details = got === undefined ? 'missing bearer token' : 'bad bearer token';
                  onRefused?.(method.path.slice(method.path.lastIndexOf('/') + 1), call, details);
                  call.sendStatus({ code: grpc.status.UNAUTHENTICATED, details, metadata: new grpc.Metadata() });
                }
              })
              .build(),
          );
        })
        .build(),
    );
}

/** Reports every call's method, status and duration (auth refusals included: it runs first). */
export function metricsInterceptor(observer: Observer): grpc.ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    return new grpc.ServerInterceptingCall(
      call,
      new grpc.ResponderBuilder()
        .withSendStatus((status, next) => {
          observer.callEnded({
            kind: 'rpc',
            name: method.path,
            outcome: grpc.status[status.code] ?? String(status.code),
            seconds: (performance.now() - started) / 1000,
          });
          next(status);
        })
        .build(),
    );
  };
}
